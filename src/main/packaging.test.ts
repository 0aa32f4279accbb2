import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

/** The `key: value` lines of one top-level block of electron-builder.yml (the file is plain and flat there). */
async function builderBlock(name: string): Promise<Record<string, string>> {
  const text = await readFile('electron-builder.yml', 'utf8');
  const block = new RegExp(`^${name}:\\n((?:[ ]{2}.*\\n)+)`, 'm').exec(text)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/^ {2}(\w+):\s*(.+?)\s*$/gm)].map((match) => [match[1], match[2]]));
}

// The Electron binary cannot run here, so what is proven is the configuration electron-builder flips the fuses from.
describe('the packaged app', () => {
  it('sets the Electron fuses: no running as Node, no NODE_OPTIONS or --inspect, only the integrity-checked app.asar, no extra file: privileges', async () => {
    expect(await builderBlock('electronFuses')).toEqual({
      runAsNode: 'false',
      enableCookieEncryption: 'true',
      enableNodeOptionsEnvironmentVariable: 'false',
      enableNodeCliInspectArguments: 'false',
      enableEmbeddedAsarIntegrityValidation: 'true',
      onlyLoadAppFromAsar: 'true',
      grantFileProtocolExtraPrivileges: 'false',
    });
  });
});
