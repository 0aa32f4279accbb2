// Compiles the command line ahead into one file, out/cli/closebook.cjs, so a command starts in the time Node takes
// to start instead of compiling TypeScript at every run. Packages stay in node_modules (keytar and DuckDB are native).
import { build } from 'esbuild';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Builds the CLI bundle to `outfile` (default out/cli/closebook.cjs). */
export async function buildCli(outfile = join(root, 'out', 'cli', 'closebook.cjs')) {
  await build({
    entryPoints: [join(root, 'src', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.node.json'),
    sourcemap: 'linked',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === import.meta.filename) await buildCli(process.argv[2]);
