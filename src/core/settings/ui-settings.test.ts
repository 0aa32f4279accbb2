import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { DEFAULT_REPORT_COLUMNS } from '@shared/contract';
import type { Logger } from '../ports/ports';
import { temporaryDir } from '@testing/test-support';
import { createSettings } from './handlers';
import { UI_SETTINGS_FILE } from './ui-settings';

const cleanups = cleanupsAfterEach();

async function settings() {
  const dir = await temporaryDir();
  cleanups.push(dir.remove);
  const warnings: string[] = [];
  const log: Logger = { info: () => {}, warn: (message) => warnings.push(message) };
  const { handlers } = createSettings({ dataDir: dir.path, log });
  const file = join(dir.path, UI_SETTINGS_FILE);
  return { dir: dir.path, file, warnings, get: () => handlers['settings:get']({}), save: handlers['settings:save'] };
}

const DEFAULTS = { reportColumns: DEFAULT_REPORT_COLUMNS, reportHierarchy: 'organization' as const, exceptionGrouping: 'finding' as const };

describe('remembered screen settings', () => {
  it('are the defaults until saved, then what was saved, in ui-settings.json in the data folder (written whole, no temporary file left)', async () => {
    const { dir, file, get, save, warnings } = await settings();
    expect(await get()).toEqual(DEFAULTS);
    const chosen = {
      reportColumns: ['quantity', 'unitPrice', 'sales', 'poNumber'] as const,
      reportHierarchy: 'service' as const,
      exceptionGrouping: 'rule' as const,
    };
    expect(await save({ ...chosen, reportColumns: [...chosen.reportColumns] })).toEqual(chosen);
    expect(await get()).toEqual(chosen);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(chosen);
    expect(await readdir(dir)).toEqual([UI_SETTINGS_FILE]);
    expect(warnings).toEqual([]);
  });

  it('give the defaults and a log warning for a damaged file, never an error; a valid field is kept', async () => {
    const { file, get, warnings } = await settings();
    await writeFile(file, '{"reportColumns": ["cost", ');
    expect(await get()).toEqual(DEFAULTS);
    await writeFile(file, JSON.stringify({ reportColumns: ['cost', 'no-such-column'], reportHierarchy: 'service' }));
    expect(await get()).toEqual({ ...DEFAULTS, reportHierarchy: 'service' });
    await writeFile(file, 'null');
    expect(await get()).toEqual(DEFAULTS);
    expect(warnings).toHaveLength(3);
    expect(warnings[1]).toMatch(/damaged/);
  });

  it('set a file that is not JSON aside when new settings are saved, never overwrite it', async () => {
    const { dir, file, save, warnings } = await settings();
    await writeFile(file, '{"reportColumns": ["cost", ');
    await save(DEFAULTS);
    const names = (await readdir(dir)).sort();
    expect(names).toEqual([expect.stringMatching(/^ui-settings\.damaged-[\dT-]+Z\.json$/), UI_SETTINGS_FILE]);
    expect(await readFile(join(dir, names[0]!), 'utf8')).toBe('{"reportColumns": ["cost", ');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(DEFAULTS);
    expect(warnings).toEqual([expect.stringMatching(/set aside/)]);
    await save(DEFAULTS); // a sound file is simply replaced
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('give the defaults when the file cannot be read at all', async () => {
    const { file, get, warnings } = await settings();
    await mkdir(file); // a folder where the file should be
    expect(await get()).toEqual(DEFAULTS);
    expect(warnings).toEqual([expect.stringMatching(/could not read/)]);
  });

  it('drop fields Closebook does not know', async () => {
    const { file, get, save } = await settings();
    await writeFile(file, JSON.stringify({ reportColumns: ['cost'], reportHierarchy: 'service', theme: 'dark' }));
    expect(await get()).toEqual({ reportColumns: ['cost'], reportHierarchy: 'service', exceptionGrouping: 'finding' });
    await save({ ...(await get()), ...({ theme: 'dark' } as object) });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ reportColumns: ['cost'], reportHierarchy: 'service', exceptionGrouping: 'finding' });
  });
});
