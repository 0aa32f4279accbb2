import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerAtSchema, ledgerWithMonth } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { silentLogger } from '../ports/ports';
import { Ledger } from './ledger';
import { MIGRATIONS } from './schema';

const OCTOBER = '11111111-1111-4111-8111-000000000030';
/** The schema this migration brings up to date. */
const BEFORE_MIGRATION_12 = 11;
const cleanups = cleanupsAfterEach();

/** How DuckDB stored the subscriptions' search text, once checkpointed (Constant: a segment of one value). */
async function searchCompression(ledger: Ledger): Promise<string[]> {
  await ledger.run('CHECKPOINT');
  const rows = await ledger.all(
    `SELECT DISTINCT compression FROM pragma_storage_info('subscriptions') WHERE column_name = 'search' AND compression <> 'Constant'`,
  );
  return rows.map((row) => String(row.compression));
}

const SUBSCRIPTIONS = 'SELECT * EXCLUDE (search), search FROM subscriptions ORDER BY report_id, subscription_no';

describe("the subscriptions' search text, read at every keystroke", () => {
  it('is stored uncompressed in a new ledger, so a keystroke reads it without decompressing it first', async () => {
    const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 200, linesPerOrganization: 30 });
    cleanups.push(() => month.close());
    expect(await searchCompression(month.ledger)).toEqual(['Uncompressed']);
  });

  it('is stored so in a ledger brought up to date, every subscription kept as it was, its rank too', async () => {
    const donor = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 200, linesPerOrganization: 30 });
    const saved = await donor.ledger.all(SUBSCRIPTIONS);
    await donor.ledger.close();
    cleanups.push(() => rm(donor.dir, { recursive: true, force: true }));
    expect(saved.length).toBeGreaterThan(3000); // enough for DuckDB to compress them (FSST) where it may
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    const old = await ledgerAtSchema(dir.path, BEFORE_MIGRATION_12, join(donor.dir, 'ledger', 'closebook.duckdb'));
    await old.connection.run(`UPDATE subscriptions SET name_rank = subscription_no * 2`); // ranks as the earlier one kept them
    await old.connection.run('CHECKPOINT');
    const before = await old.connection.runAndReadAll(
      `SELECT DISTINCT compression FROM pragma_storage_info('subscriptions') WHERE column_name = 'search' AND compression <> 'Constant'`,
    );
    expect(before.getRowObjects().map((row) => row.compression)).toEqual(['FSST']); // what DuckDB chose before
    old.close();

    const ledger = await Ledger.open(dir.path, silentLogger);
    cleanups.push(() => ledger.close());
    expect(await ledger.all('SELECT max(version) AS version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    expect(await searchCompression(ledger)).toEqual(['Uncompressed']);
    expect(await ledger.all(SUBSCRIPTIONS)).toEqual(saved.map((row) => ({ ...row, name_rank: Number(row.subscription_no) * 2 })));
  });
});
