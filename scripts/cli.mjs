// `npm run cli -- …`: runs the compiled command line, compiling it first when it is missing or older than the code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bundle = join(root, 'out', 'cli', 'closebook.cjs');

/** The newest modification time of the TypeScript the CLI is built from. */
function newestSource() {
  let newest = 0;
  for (const folder of ['cli', 'core', 'shared', 'twin', 'main']) {
    for (const entry of readdirSync(join(root, 'src', folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

if (!existsSync(bundle) || statSync(bundle).mtimeMs < newestSource()) {
  const { buildCli } = await import('./build-cli.mjs');
  await buildCli(bundle);
}
createRequire(import.meta.url)(bundle);
