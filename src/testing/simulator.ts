import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_CREDENTIALS } from '@twin/credentials';

/** tsx, for a test that runs a script of TypeScript in a process of its own. */
export const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
/** The compiled command line, as `npm run cli -- …` runs it (built by each test project's global setup). */
export const CLI_BUNDLE = join(process.cwd(), 'out', 'cli', 'closebook.cjs');
/** How a test starts the CLI: Node and the compiled CLI, then the command's arguments. */
export const CLI = [process.execPath, CLI_BUNDLE] as const;

/** Starts `simulator` and resolves with the base URL it prints first. */
export async function startSimulator(args: string[] = []): Promise<{ baseUrl: string; process: ChildProcess }> {
  const child = spawn(CLI[0], [CLI[1], 'simulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { baseUrl: firstLine.trim(), process: child };
}

export function inlineConnection(baseUrl: string): string[] {
  return [
    '--base-url',
    baseUrl,
    '--client-id',
    DEMO_CREDENTIALS.clientId,
    '--username',
    DEMO_CREDENTIALS.username,
    '--reseller-id',
    DEMO_CREDENTIALS.resellerId,
    '--seller-id',
    DEMO_CREDENTIALS.sellerId,
  ];
}
