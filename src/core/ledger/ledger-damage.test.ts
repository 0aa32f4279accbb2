import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { AppError } from '@shared/errors';
import { silentLogger } from '../ports/ports';
import { buildBillingReport, fillDisk, generateOrganizations, smallDisk, temporaryDir } from '@testing/test-support';
import { testIdentity } from '@testing/ledger-month';
import { ingestReport } from '../reports/report-ingest';
import { Ledger } from './ledger';

const cleanups = cleanupsAfterEach();

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const served = (organizations: number, linesPerOrganization: number) =>
  JSON.stringify({
    status: 5,
    data: buildBillingReport(generateOrganizations({ seed: 3, organizations, linesPerOrganization }), '2026-10-01', '2026-10-31', { seed: 3 }),
  });

async function* chunks(text: string, size = 64 * 1024): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

const totals = (ledger: Ledger) =>
  ledger.all(
    `SELECT report_id, currency, customer_currency, line_count::INTEGER AS lines, cost::VARCHAR AS cost, sales::VARCHAR AS sales FROM report_totals ORDER BY ALL`,
  );

describe('a damaged ledger and a full disk', () => {
  it('refuses a damaged ledger file with what to do, and leaves the file as it was', async () => {
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    const file = join(dir.path, 'ledger', 'closebook.duckdb');
    await mkdir(join(dir.path, 'ledger'), { recursive: true });
    const damaged = Buffer.concat([Buffer.from('not a DuckDB file '), Buffer.alloc(64 * 1024, 7)]);
    await writeFile(file, damaged);
    const error = await Ledger.open(dir.path, silentLogger).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('storage');
    expect((error as AppError).message).toMatch(/cannot be opened.*Restore it from a backup/s);
    expect((error as AppError).message.length).toBeLessThan(400);
    expect(Buffer.compare(await readFile(file), damaged)).toBe(0); // never "repaired" into an empty ledger
  });

  it('says the disk is full when a month cannot be saved, and keeps the months saved before it whole', async () => {
    const { path: disk, remove } = await smallDisk(48);
    cleanups.push(remove);

    let ledger = await Ledger.open(disk, silentLogger, { threads: 1 });
    await ingestReport(ledger, testIdentity(ID(1)), chunks(served(20, 10)));
    const before = await totals(ledger);
    expect(before.length).toBeGreaterThan(0);

    // Fill the disk to within about a megabyte, then save a month far bigger than what is left.
    const full = await fillDisk(disk);
    const failure = await ingestReport(ledger, testIdentity(ID(2)), chunks(served(400, 50))).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(/disk is full|no space/i);
    expect((failure as AppError).message).not.toMatch(/\n\s+at /); // no stack trace

    // Make room: saving works again, and after a restart the earlier month is whole and the failed one is not there.
    await full.free();
    await ingestReport(ledger, testIdentity(ID(3)), chunks(served(2, 2))); // "try again" works without a restart
    await Promise.resolve(ledger.close());
    ledger = await Ledger.open(disk, silentLogger);
    cleanups.push(() => ledger.close());
    expect((await totals(ledger)).filter((row) => row.report_id === ID(1))).toEqual(before);
    expect(await ledger.all(`SELECT report_id FROM reports ORDER BY report_id`)).toEqual([{ report_id: ID(1) }, { report_id: ID(3) }]);
  });
});
