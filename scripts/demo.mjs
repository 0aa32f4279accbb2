// `npm run demo`: Closebook on its built-in demo service, no account needed.
// With the Electron binary installed it opens the desktop app; without it (machines that cannot download
// Electron) it serves the same app to your browser through the test bridge and prints a one-time link to open it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const build = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const electronDir = join(root, 'node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;

if (binary && existsSync(binary)) {
  spawn(binary, [root, '--demo'], { cwd: root, stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('The Electron binary is not installed here (run `npx install-electron` where its download host is reachable).');
  console.log('Opening Closebook in the browser instead: same app, same service code, secrets kept in memory only.');
  const harness = spawn('npx', ['tsx', 'src/harness/index.ts', '--port', process.env.PORT ?? '5199'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  harness.stdout.once('data', (data) => {
    const link = String(data).trim();
    console.log(`\n  Closebook is running. Open this link in your browser (Ctrl-C to stop):\n\n    ${link}\n`);
    console.log(`  It works once, for the first browser that opens it; afterwards that browser uses ${new URL(link).origin}/.\n`);
  });
  harness.on('exit', (code) => process.exit(code ?? 0));
  // Ctrl-C reaches the harness too; it removes its temporary data folder before it exits.
  process.on('SIGINT', () => {});
}
