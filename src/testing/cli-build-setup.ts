import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI_BUNDLE } from './simulator';

/**
 * Every test project's global setup: the command line compiled from the code under test, once per run, so the
 * tests run the CLI as `npm run cli` does (out/cli/closebook.cjs) and never an older build of it.
 */
export function setup(): void {
  const build = spawnSync(process.execPath, [join(process.cwd(), 'scripts', 'build-cli.mjs'), CLI_BUNDLE], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`The CLI did not compile:\n${build.stderr}`);
}
