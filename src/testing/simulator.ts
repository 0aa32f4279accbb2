import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_CREDENTIALS } from '@twin/credentials';

// The CLI is run as users run it: `npm run --silent cli -- …` is `tsx src/cli/index.ts …`.
export const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
export const ENTRY = join(process.cwd(), 'src', 'cli', 'index.ts');

/** Starts `simulator` and resolves with the base URL it prints first. */
export async function startSimulator(args: string[] = []): Promise<{ baseUrl: string; process: ChildProcess }> {
  const child = spawn(TSX, [ENTRY, 'simulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
