import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerAtSchema, ledgerWithMonth } from '@testing/ledger-month';
import { fillDisk, inProcess, smallDisk, temporaryDir } from '@testing/test-support';
import { AppError } from '@shared/errors';
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
    // What DuckDB chose before is not asserted: it varies from run to run (FSST, at times none at all for this many).
    old.close();

    const ledger = await Ledger.open(dir.path, silentLogger);
    cleanups.push(() => ledger.close());
    expect(await ledger.all('SELECT max(version) AS version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    expect(await searchCompression(ledger)).toEqual(['Uncompressed']);
    expect(await ledger.all(SUBSCRIPTIONS)).toEqual(saved.map((row) => ({ ...row, name_rank: Number(row.subscription_no) * 2 })));
  });

  it('is brought up to date on a full disk not at all: refused in words, the saved months whole, and done once there is room', async () => {
    const donor = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 400, linesPerOrganization: 50 });
    const saved = await donor.ledger.all(SUBSCRIPTIONS);
    await donor.ledger.close();
    cleanups.push(() => rm(donor.dir, { recursive: true, force: true }));
    const earlier = await temporaryDir();
    cleanups.push(() => earlier.remove());
    (await ledgerAtSchema(earlier.path, BEFORE_MIGRATION_12, join(donor.dir, 'ledger', 'closebook.duckdb'))).close();
    const { path: disk, remove } = await smallDisk(32);
    cleanups.push(remove);
    await cp(join(earlier.path, 'ledger'), join(disk, 'ledger'), { recursive: true });

    const full = await fillDisk(disk); // about a megabyte left: less than the subscriptions' table made again
    const failure = await Ledger.open(disk, silentLogger, { threads: 1 }).then(
      async (opened) => {
        await opened.close();
        return null;
      },
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(/disk is full/i);
    expect((failure as AppError).message).not.toMatch(/\n\s+at /); // no stack trace

    await full.free();
    // The failed open held nothing: another process brings it up to date (DuckDB lets one process hold the file).
    const script = `require('./src/core/ledger/ledger').Ledger.open(${JSON.stringify(disk)}, { info() {}, warn() {} }).then((l) => l.close()).then(() => process.exit(0), (e) => { process.stderr.write(e.message); process.exit(3); });`;
    const other = await inProcess(script, 60_000);
    expect({ code: other.code, stderr: other.stderr }).toEqual({ code: 0, stderr: '' });
    const ledger = await Ledger.open(disk, silentLogger, { threads: 1 });
    cleanups.push(() => ledger.close());
    expect(await ledger.all('SELECT max(version) AS version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    expect(await ledger.all(SUBSCRIPTIONS)).toEqual(saved);
    expect(await searchCompression(ledger)).toEqual(['Uncompressed']);
  });
});
