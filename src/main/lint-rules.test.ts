import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The architecture is enforced by lint; these prove each rule fires on the file kinds it guards.
const eslint = new ESLint({ cwd: process.cwd() });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('architecture lint rules', () => {
  it('fail on a core file that imports electron or keytar', async () => {
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src/main/core/bad.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import keytar from 'keytar';\nexport const x = keytar;\n", 'src/main/core/reports/bad.ts')).toContain('no-restricted-imports');
  });

  it('fail on a shared file that imports a Node module', async () => {
    expect(await ruleIds("import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", 'src/shared/bad.ts')).toContain('no-restricted-imports');
  });

  it('fail on a renderer file that imports main-process code or electron', async () => {
    expect(await ruleIds("import { createService } from '../../main/core/service';\nexport const x = createService;\n", 'src/renderer/src/bad.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n", 'src/renderer/src/bad.ts')).toContain('no-restricted-imports');
  });

  it('allow electron in the Electron glue', async () => {
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src/main/window-extra.ts')).toEqual([]);
  });
});
