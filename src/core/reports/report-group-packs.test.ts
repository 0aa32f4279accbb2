import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { AppError } from '@shared/errors';
import type { DeliverFile } from '../ports/ports';
import { ledgerWithMonth, type ServedEntries } from '@testing/ledger-month';
import { testPorts } from '@testing/test-support';
import { ReportLibrary } from './report-library';
import { exportGroupPacks, exportGroupPacksToFolder, packFileNames, planGroupPacks } from './report-group-packs';

const REPORT = '00000000-0000-4000-8000-000000000009';
const cleanups = cleanupsAfterEach();

/** Groups by the organization's position in the month: two account managers differing only in case, a cost centre with a slash, two without a group. */
const GROUPS_BY_POSITION: string[][] = [
  ['Jane Doe'],
  ['jane doe'],
  ['Jane Doe', 'CC-100/Nordics'],
  [],
  [],
  ['CC-100/Nordics'],
  ['CC-100/Nordics'],
  ['CC-100/Nordics'],
];

function assignGroups(groups: (position: number) => string[]) {
  return (entries: ServedEntries) => {
    const positions = new Map<string, number>();
    for (const entry of entries)
      for (const organization of entry.organizations) {
        if (!positions.has(organization.orgId)) positions.set(organization.orgId, positions.size);
        organization.organizationGroups = groups(positions.get(organization.orgId)!);
      }
  };
}

async function month(groups: (position: number) => string[] = (position) => GROUPS_BY_POSITION[position] ?? []) {
  const made = await ledgerWithMonth({
    reportId: REPORT,
    seed: 9,
    organizations: GROUPS_BY_POSITION.length,
    linesPerOrganization: 3,
    change: assignGroups(groups),
  });
  cleanups.push(made.close);
  const orgIds = [...new Set(made.entries.flatMap((entry) => entry.organizations.map((organization) => organization.orgId)))];
  const meta = await new ReportLibrary(async () => made.ledger).meta(REPORT);
  const { ports, cleanup } = await testPorts({ dataDir: made.dir });
  cleanups.push(cleanup);
  return { ...made, orgIds, meta, ports };
}

/** The org ids in a pack's Billing lines sheet (found by header, so total rows and column moves do not matter). */
async function orgIdsIn(path: string): Promise<string[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheet = workbook.getWorksheet('Billing lines')!;
  const column = (sheet.getRow(1).values as unknown[]).indexOf('Org ID');
  const ids = new Set<string>();
  sheet.eachRow((row, number) => {
    const value = row.getCell(column).value;
    if (number > 1 && typeof value === 'string' && value) ids.add(value);
  });
  return [...ids].sort();
}

describe('per-group workbook packs', () => {
  it('writes one workbook per group and one for the ungrouped: an organization in two groups is in both, names are unique ignoring case', async () => {
    const { ledger, meta, orgIds, ports, dir } = await month();
    const folder = join(dir, 'packs');
    const { packs, inSeveralGroups } = await exportGroupPacksToFolder(ports, ledger, meta, {}, folder);

    const ids = (...positions: number[]) => positions.map((position) => orgIds[position]!).sort();
    expect(packs.map(({ group, organizations, fileName }) => ({ group, organizations, fileName }))).toEqual([
      { group: 'CC-100/Nordics', organizations: 4, fileName: 'Billing 2026-10 — CC-100-Nordics.xlsx' },
      // In the report's name order (English here: lower case before upper at the last level, as ICU has it).
      { group: 'jane doe', organizations: 1, fileName: 'Billing 2026-10 — jane doe.xlsx' },
      { group: 'Jane Doe', organizations: 2, fileName: 'Billing 2026-10 — Jane Doe (2).xlsx' },
      { group: null, organizations: 2, fileName: 'Billing 2026-10 — Ungrouped.xlsx' },
    ]);
    expect(inSeveralGroups).toBe(1);
    expect(await orgIdsIn(join(folder, packs[0]!.fileName))).toEqual(ids(2, 5, 6, 7));
    expect(await orgIdsIn(join(folder, packs[1]!.fileName))).toEqual(ids(1));
    expect(await orgIdsIn(join(folder, packs[2]!.fileName))).toEqual(ids(0, 2));
    expect(await orgIdsIn(join(folder, packs[3]!.fileName))).toEqual(ids(3, 4));
    expect(packs.every((pack) => pack.file.kind === 'saved' && pack.file.path === join(folder, pack.fileName))).toBe(true);
    expect((await readdir(folder)).sort()).toEqual(packs.map((pack) => pack.fileName).sort()); // nothing else (no temporary files)
  });

  it('applies the rest of the filter to every pack and sets its own group choice aside', async () => {
    const { ledger, meta, lines } = await month();
    // The currency most organizations are billed in, so that it spans several packs.
    const organizationsByCurrency = new Map<string, Set<string>>();
    for (const { organization, service } of lines) {
      const { currencyCode, customerCurrencyCode = currencyCode } = service;
      const key = currencyCode === customerCurrencyCode ? currencyCode : `${currencyCode}→${customerCurrencyCode}`;
      organizationsByCurrency.set(key, (organizationsByCurrency.get(key) ?? new Set()).add(organization.orgId));
    }
    const [currency] = [...organizationsByCurrency].sort((a, b) => b[1].size - a[1].size)[0]!;
    const plan = await planGroupPacks(ledger, meta, { currency });
    expect(plan.packs.length).toBeGreaterThan(2);
    expect(await planGroupPacks(ledger, meta, { group: 'Jane Doe', currency })).toEqual(plan);
    expect(plan.packs.map((pack) => pack.filter)).toEqual(
      plan.packs.map((pack) => (pack.group === null ? { currency, ungrouped: true } : { currency, group: pack.group })),
    );
  });

  it('refuses a report whose organizations are in no group, before asking for a folder', async () => {
    const { ledger, meta, ports } = await month(() => []);
    let asked = false;
    const refused = exportGroupPacks({ ...ports, pickFolder: async () => ((asked = true), '/nowhere') }, ledger, meta);
    await expect(refused).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/No organization in this report belongs to an organization group/),
    });
    expect(asked).toBe(false);
  });

  it('leaves no half-written file when a pack fails part-way, and says which packs were written', async () => {
    const { ledger, meta, ports, dir } = await month();
    const folder = join(dir, 'packs');
    await mkdir(join(folder, 'Billing 2026-10 — jane doe.xlsx'), { recursive: true }); // the second pack cannot take its place
    const failure = await exportGroupPacksToFolder(ports, ledger, meta, {}, folder).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(
      /^A folder is in its place \(.*packs\): .*Billing 2026-10 — jane doe\.xlsx could not be written\. Nothing was saved there; .* The 1 of 4 packs before it were written to .*packs: Billing 2026-10 — CC-100-Nordics\.xlsx\.$/,
    );
    expect((await readdir(folder)).sort()).toEqual(['Billing 2026-10 — CC-100-Nordics.xlsx', 'Billing 2026-10 — jane doe.xlsx']);
  });

  it('asks the desktop for a folder (cancel writes nothing); the browser bridge gets each pack as a download', async () => {
    const { ledger, meta, ports, dir } = await month();
    expect(await exportGroupPacks({ ...ports, pickFolder: async () => null }, ledger, meta)).toEqual({ folder: null, packs: [] });
    expect(await readdir(dir)).not.toContain('packs');

    const delivered: string[] = [];
    const deliver: DeliverFile = async (fileName, kind, write) => {
      const path = join(dir, `download-${delivered.length}`);
      await write(path);
      delivered.push(`${kind}:${fileName}`);
      return { kind: 'download', fileName, url: `/bridge/files/${delivered.length}` };
    };
    const answer = await exportGroupPacks({ ...ports, deliver }, ledger, meta);
    expect(answer.folder).toBeNull();
    expect(answer.packs.map((pack) => pack.file)).toEqual(
      delivered.map((_, index) => expect.objectContaining({ kind: 'download', url: `/bridge/files/${index + 1}` })),
    );
    expect(delivered).toEqual(answer.packs.map((pack) => `xlsx:${pack.fileName}`));
    expect(await orgIdsIn(join(dir, 'download-3'))).toHaveLength(2); // the Ungrouped pack, written where the host said
  });
});

describe('pack file names', () => {
  it('are safe, unique on case-insensitive disks, and keep their extension when long', () => {
    expect(packFileNames('Billing 2026-10', ['A', 'a', 'A', 'Ungrouped', 'x:y'])).toEqual([
      'Billing 2026-10 — A.xlsx',
      'Billing 2026-10 — a (2).xlsx',
      'Billing 2026-10 — A (3).xlsx',
      'Billing 2026-10 — Ungrouped.xlsx',
      'Billing 2026-10 — x-y.xlsx',
    ]);
    const long = packFileNames('R', ['g'.repeat(300), 'G'.repeat(300)]);
    expect(long.every((name) => name.endsWith('.xlsx') && name.length <= 150)).toBe(true);
    expect(long[1]).toMatch(/ \(2\)\.xlsx$/);
  });
});
