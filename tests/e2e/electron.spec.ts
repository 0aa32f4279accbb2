import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';

/**
 * The real desktop app, for machines that have the Electron binary. Where the binary cannot be downloaded
 * (as on the CI machines), this spec is reported as skipped, never as passed.
 */
function electronBinary(): string | null {
  // Read where the package put the binary; requiring 'electron' would try to download a missing one.
  const packageDir = join(process.cwd(), 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

test('the desktop app opens on demo mode with a locked-down window', async () => {
  const binary = electronBinary();
  test.skip(!binary, 'The Electron binary is not installed on this machine');
  const app = await electron.launch({ executablePath: binary as string, args: [join(process.cwd(), 'out/main/index.js'), '--demo'] });
  const window = await app.firstWindow();
  await expect(window.getByRole('navigation', { name: 'Main' })).toBeVisible();
  expect(await window.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
  expect(await window.evaluate(() => Object.keys((window as unknown as { closebook: object }).closebook).sort())).toEqual(['invoke', 'on']);
  await app.close();
});
