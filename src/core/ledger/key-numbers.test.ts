import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerAtSchema, ledgerWithMonth } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { silentLogger } from '../ports/ports';
import { Ledger } from './ledger';
import { KEYED_LEVELS } from './keys';
import { MIGRATIONS } from './schema';

const OCTOBER = '11111111-1111-4111-8111-000000000030';
/** The schema migration 14 brings up to date. */
const BEFORE_MIGRATION_14 = 13;
const cleanups = cleanupsAfterEach();

/** Every organization and service of the ledger: their rows as saved, without their key numbers. */
const SAVED = Object.fromEntries(
  Object.entries(KEYED_LEVELS).map(([table, { no }]) => [table, `SELECT * EXCLUDE (key_no) FROM ${table} ORDER BY report_id, ${no}`]),
);

/**
 * How the key numbers break the rules (none, when right): rows without one, two keys under one number, one key under
 * two numbers, or numbers out of the keys' order.
 */
async function wrongKeyNumbers(ledger: Ledger): Promise<Record<string, string>> {
  const wrong: Record<string, string> = {};
  for (const [table, { alias, key }] of Object.entries(KEYED_LEVELS)) {
    const [row] = await ledger.all(
      `SELECT count(*) FILTER (WHERE key_no IS NULL) AS missing,
         (SELECT count(*) FROM (SELECT report_id, key_no FROM ${table} ${alias} GROUP BY ALL HAVING count(DISTINCT ${key}) > 1)) AS shared,
         (SELECT count(*) FROM (SELECT report_id, ${key} FROM ${table} ${alias} GROUP BY ALL HAVING count(DISTINCT key_no) > 1)) AS split,
         (SELECT count(*) FROM (SELECT key_no, lag(key_no) OVER (PARTITION BY report_id ORDER BY ${key}) AS before FROM ${table} ${alias}) WHERE key_no < before) AS unordered,
         count(DISTINCT key_no) AS numbers
       FROM ${table}`,
    );
    if (Number(row!.numbers) < 2) wrong[table] = `only ${String(row!.numbers)} key numbers`;
    for (const rule of ['missing', 'shared', 'split', 'unordered']) if (Number(row![rule]) > 0) wrong[table] = `${rule}: ${String(row![rule])}`;
  }
  return wrong;
}

describe("the key numbers of a month's organizations and services, what the viewer's top rows group on", () => {
  it('are made for a new month, one number per key (an organization billed twice shares one), in the keys’ order', async () => {
    const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 60, linesPerOrganization: 10 });
    cleanups.push(() => month.close());
    const [twice] = await month.ledger.all(
      `SELECT count(*) AS n FROM (SELECT org_id FROM organizations WHERE org_id <> '' GROUP BY org_id HAVING count(*) > 1)`,
    );
    expect(Number(twice!.n), 'an organization billed in two entries').toBeGreaterThan(0);
    expect(await wrongKeyNumbers(month.ledger)).toEqual({});
  });

  it('are made for the months of a ledger brought up to date, every other column kept as it was', async () => {
    const donor = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 60, linesPerOrganization: 10 });
    const saved = Object.fromEntries(await Promise.all(Object.entries(SAVED).map(async ([table, sql]) => [table, await donor.ledger.all(sql)] as const)));
    await donor.ledger.close();
    cleanups.push(() => rm(donor.dir, { recursive: true, force: true }));
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    (await ledgerAtSchema(dir.path, BEFORE_MIGRATION_14, join(donor.dir, 'ledger', 'closebook.duckdb'))).close();

    const ledger = await Ledger.open(dir.path, silentLogger);
    cleanups.push(() => ledger.close());
    expect(await ledger.all('SELECT max(version) AS version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    expect(await wrongKeyNumbers(ledger)).toEqual({});
    for (const [table, sql] of Object.entries(SAVED)) expect(await ledger.all(sql), table).toEqual(saved[table]);
  });
});
