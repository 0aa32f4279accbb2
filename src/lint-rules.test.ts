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
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src/core/bad.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import keytar from 'keytar';\nexport const x = keytar;\n", 'src/core/reports/bad.ts')).toContain('no-restricted-imports');
  });

  it('fail on a shared file that imports a Node module or a side', async () => {
    expect(await ruleIds("import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", 'src/shared/bad.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { createService } from '@core';\nexport const x = createService;\n", 'src/shared/bad.ts')).toContain('no-restricted-imports');
  });

  it('fail on a renderer file that imports main-process code or electron', async () => {
    expect(await ruleIds("import { createService } from '@core/service';\nexport const x = createService;\n", 'src/renderer/src/bad.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds("import { createService } from '../../../core/service';\nexport const x = createService;\n", 'src/renderer/src/bad.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds("import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n", 'src/renderer/src/bad.ts')).toContain(
      'no-restricted-imports',
    );
  });

  it('allow electron in the Electron host', async () => {
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src/main/window-extra.ts')).toEqual([]);
  });

  it('fail on a host that imports past the core front door', async () => {
    const deep = (from: string) => `import { createService } from '${from}';\nexport const x = createService;\n`;
    expect(await ruleIds(deep('@core/service'), 'src/main/index-extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('@core/ports/ports'), 'src/main/extra.test.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('@core/reports/report-job'), 'src/cli/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('../core/storage/atomic-file'), 'src/cli/extra.test.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('@core/service'), 'src/harness/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('@core/ports/ports'), 'tests/e2e/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(deep('../src/core/reports/report-store'), 'bench/extra.ts')).toContain('no-restricted-imports');
  });

  it('allow hosts the core front door, and the test helpers anything', async () => {
    const use = (from: string) => `import { createService } from '${from}';\nexport const x = createService;\n`;
    expect(await ruleIds(use('@core'), 'src/main/index-extra.ts')).toEqual([]);
    expect(await ruleIds(use('@core'), 'src/cli/extra.ts')).toEqual([]);
    expect(await ruleIds(use('../core/index'), 'src/harness/extra.ts')).toEqual([]);
    expect(await ruleIds(use('@core'), 'tests/e2e/extra.ts')).toEqual([]);
    expect(await ruleIds(use('@core/ports/ports'), 'src/testing/extra.ts')).toEqual([]);
    expect(await ruleIds(use('@twin/server'), 'src/testing/extra.ts')).toEqual([]);
    // Inside the core, modules import each other freely.
    expect(await ruleIds(use('../ports/ports'), 'src/core/reports/extra.ts')).toEqual([]);
  });

  it('fail on an import that climbs out of two folders instead of naming the top folder', async () => {
    const use = (from: string) => `import { money } from '${from}';\nexport const x = money;\n`;
    expect(await ruleIds(use('../../shared/money'), 'src/core/reports/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('../../../shared/money'), 'src/renderer/src/features/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('@shared/money'), 'src/core/reports/extra.ts')).toEqual([]);
  });

  it('fail on core code that imports the twin or the test helpers', async () => {
    const use = (from: string) => `import { startTwin } from '${from}';\nexport const x = startTwin;\n`;
    expect(await ruleIds(use('@twin/server'), 'src/core/reports/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('../twin/server'), 'src/core/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('@testing/test-support'), 'src/core/reports/extra.ts')).toContain('no-restricted-imports');
  });

  it('let core unit tests use the test helpers but not the twin directly', async () => {
    const use = (from: string) => `import { startTwin } from '${from}';\nexport const x = startTwin;\n`;
    expect(await ruleIds(use('@testing/test-support'), 'src/core/reports/extra.test.ts')).toEqual([]);
    expect(await ruleIds(use('@twin/server'), 'src/core/reports/extra.test.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import type { Twin } from '../twin/server';\nexport type X = Twin;\n", 'src/core/extra.test.ts')).toContain('no-restricted-imports');
    // The core's existing walls still hold in its tests.
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src/core/extra.test.ts')).toContain('no-restricted-imports');
  });

  it('fail on a CLI command that calls a handler past the contract (context.call goes through dispatch)', async () => {
    expect(await ruleIds("export const run = (context: any) => context.service.handlers['reports:list']({});\n", 'src/cli/extra.ts')).toContain(
      'no-restricted-syntax',
    );
    expect(await ruleIds("export const run = (context: any) => context.call('reports:list', {});\n", 'src/cli/extra.ts')).not.toContain('no-restricted-syntax');
  });

  it('fail on a feature that reaches into another feature past its index.ts', async () => {
    const use = (from: string) => `import { lineFilter } from '${from}';\nexport const x = lineFilter;\n`;
    expect(await ruleIds(use('../reports/queries/lines'), 'src/core/close/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('@core/reports/queries/lines'), 'src/core/consumption/extra.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(use('../reports'), 'src/core/close/extra.ts')).toEqual([]);
    expect(await ruleIds(use('../ledger/keys'), 'src/core/close/extra.ts')).toEqual([]); // what features share is not a feature
    expect(await ruleIds(use('./queries/lines'), 'src/core/reports/extra.ts')).toEqual([]);
  });

  it('fail on a unit test that replaces a module, unless its file is named to run apart', async () => {
    const mocking = "import { vi } from 'vitest';\nvi.mock('./billing-checks');\n";
    expect(await ruleIds(mocking, 'src/core/close/extra.test.ts')).toContain('no-restricted-syntax');
    expect(await ruleIds(mocking.replace('vi.mock', 'vi.doMock'), 'src/main/extra.test.ts')).toContain('no-restricted-syntax');
    expect(await ruleIds(mocking, 'src/core/close/extra.mocks.test.ts')).toEqual([]);
  });
});
