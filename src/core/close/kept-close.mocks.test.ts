import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { money } from '@shared/money';
import { ledgerWithMonth, restateTotals, testIdentity } from '@testing/ledger-month';
import { serviceFixture } from '@testing/service-fixture';
import { buildBillingReport, fillDisk, generateOrganizations, smallDisk } from '@testing/test-support';
import { AppError } from '@shared/errors';
import { silentLogger } from '../ports/ports';
import { Ledger, LedgerHandle } from '../ledger/ledger';
import { contentHashOf, keptContentHash } from '../reports';
import { ingestReport } from '../reports/report-ingest';
import { runBillingChecks } from './billing-checks';
import { MonthClose } from './month-close';
import { compareMonths } from './month-compare';

// The real checks and comparisons, counted: what the month close keeps is what it need not run again.
vi.mock('./billing-checks', async (importOriginal) => {
  const original = await importOriginal<typeof import('./billing-checks')>();
  return { ...original, runBillingChecks: vi.fn(original.runBillingChecks) };
});
vi.mock('./month-compare', async (importOriginal) => {
  const original = await importOriginal<typeof import('./month-compare')>();
  return { ...original, compareMonths: vi.fn(original.compareMonths) };
});

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const REFETCH = '11111111-1111-4111-8111-000000000012';
const cleanups = cleanupsAfterEach();

/** October, and November with every third line's quantity up by one (so there are changes to read in parts). */
async function twoMonths() {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 11, organizations: 8, linesPerOrganization: 6 });
  cleanups.push(month.close);
  const november = structuredClone(month.entries);
  let index = 0;
  for (const organization of november.flatMap((entry) => entry.organizations))
    for (const item of organization.services.flatMap((service) => service.items))
      for (const product of item.products) {
        if (index++ % 3) continue;
        product.quantity += 1;
        product.totalCustomerPrice = money(product.customerPricePerUnit).times(product.quantity).toFixed(2);
        product.totalResellerPrice = money(product.resellerPricePerUnit).times(product.quantity).toFixed(2);
      }
  restateTotals(november);
  await save(month.ledger, NOVEMBER, november);
  return { ledger: month.ledger, november };
}

async function save(ledger: Ledger, reportId: string, entries: unknown) {
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, testIdentity(reportId, { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
}

const count = async (ledger: Ledger, table: string) => Number((await ledger.all(`SELECT count(*)::INTEGER AS n FROM ${table}`))[0]?.n);

describe('what the month close keeps in the ledger', () => {
  it("takes each report's content hash once, when it is saved", async () => {
    const { ledger } = await twoMonths();
    const kept = await ledger.all('SELECT report_id, content_hash FROM reports ORDER BY report_id');
    expect(kept.map((row) => row.content_hash)).toEqual([await contentHashOf(ledger, OCTOBER), await contentHashOf(ledger, NOVEMBER)]);
    // A report saved before hashes were kept gets its hash on first use, and keeps it.
    await ledger.write((transaction) => transaction.run('UPDATE reports SET content_hash = NULL WHERE report_id = $1', [OCTOBER]));
    expect(await keptContentHash(ledger, OCTOBER)).toBe(await contentHashOf(ledger, OCTOBER));
    expect((await ledger.all('SELECT content_hash FROM reports WHERE report_id = $1', [OCTOBER]))[0]?.content_hash).toBe(await contentHashOf(ledger, OCTOBER));
  });

  it('compares two months once and reads the kept changes in parts that join up to the whole; a refetch is compared anew', async () => {
    const { ledger, november } = await twoMonths();
    const first = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(first.changeCount).toBeGreaterThan(10);
    expect(await count(ledger, 'kept_comparisons')).toBe(1);
    const whole = await first.changes(0, first.changeCount);
    const parts = [...(await first.changes(0, 4)), ...(await first.changes(4, 5)), ...(await first.changes(9, first.changeCount))];
    expect(parts).toEqual(whole);
    const batches: unknown[] = [];
    for await (const batch of first.batches(7)) batches.push(...batch);
    expect(batches).toEqual(whole);
    expect(first.kinds).toEqual({ new: 0, lost: 0, quantity: first.changeCount, price: 0, amount: 0 });

    const again = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(await count(ledger, 'kept_comparisons')).toBe(1);
    expect(await again.changes(0, again.changeCount)).toEqual(whole);
    expect(again.bridges).toEqual(first.bridges);

    // The same lines fetched again are another report: compared on their own (names are read from the report).
    await save(ledger, REFETCH, november);
    const refetch = await compareMonths(ledger, OCTOBER, REFETCH);
    expect(await count(ledger, 'kept_comparisons')).toBe(2);
    expect(refetch.changeCount).toBe(first.changeCount);
  });

  it("finds a month's exceptions once, for this process and the next, and again when what they read changes", async () => {
    const { ledger } = await twoMonths();
    const checks = vi.mocked(runBillingChecks);
    checks.mockClear();
    const state = await new MonthClose(async () => ledger).state(NOVEMBER);
    expect(state.exceptions.some((exception) => exception.rule === 'quantity-jump' || exception.rule === 'unit-price-changed')).toBe(false);
    expect(checks).toHaveBeenCalledTimes(1);

    // A new MonthClose stands for the next start of the app: the exceptions are read from the ledger.
    const reopened = await new MonthClose(async () => ledger).state(NOVEMBER);
    expect(checks).toHaveBeenCalledTimes(1);
    expect(reopened.exceptions).toEqual(state.exceptions);

    // Other thresholds are other checks: a jump of 1 % finds the raised quantities.
    const strict = await new MonthClose(async () => ledger).state(NOVEMBER, { marginDeviationPoints: 20, quantityJumpPercent: 1 });
    expect(checks).toHaveBeenCalledTimes(2);
    expect(strict.exceptions.filter((exception) => exception.rule === 'quantity-jump').length).toBeGreaterThan(0);

    // A damaged kept result is found again rather than shown.
    await ledger.write((transaction) => transaction.run(`UPDATE kept_checks SET exceptions = '[{"id": 1}'`));
    expect((await new MonthClose(async () => ledger).state(NOVEMBER)).exceptions).toEqual(state.exceptions);
    expect(checks).toHaveBeenCalledTimes(3);
  });

  it('are made in the background in the app as soon as a month is fetched, so the Close screen opens on them', async () => {
    const checkedAhead: unknown[] = [];
    const log = {
      info: (message: string, details?: Record<string, unknown>) => void (message === 'month checked ahead' && checkedAhead.push(details?.reportId)),
      warn: () => {},
    };
    const fixture = await serviceFixture({ ports: { host: 'electron', log } });
    cleanups.push(fixture.close);
    const { service } = fixture;
    const checks = vi.mocked(runBillingChecks);
    const job = await service.handlers['reports:request']({ profileId: fixture.profile.id, period: { startDate: '2026-11-01', endDate: '2026-11-30' } });
    const [done] = await service.reports.waitFor([job.id]);
    const november = done?.reportId as string;
    for (let waited = 0; !checkedAhead.includes(november) && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(checkedAhead).toContain(november);
    const checked = () => checks.mock.calls.filter(([, reportId]) => reportId === november).map(([, , previousId]) => previousId);
    expect(checked()).toEqual([fixture.report.id]); // November, once, against October
    // Then its comparison with October, for the Compare panel (the checks need none of their own).
    const compared = vi.mocked(compareMonths).mock.calls.filter(([, , afterId]) => afterId === november);
    expect(compared.map(([, beforeId]) => beforeId)).toEqual([fixture.report.id]);

    const state = await service.handlers['close:state']({ reportId: november });
    expect(state.previousReportId).toBe(fixture.report.id);
    expect(checked()).toHaveLength(1); // read as kept
  });

  it('says the disk is full when a comparison cannot be kept, keeps none of it, and keeps it once there is room', async () => {
    const { path: disk, remove } = await smallDisk(48);
    cleanups.push(remove);
    const ledger = await Ledger.open(disk, silentLogger, { threads: 1 });
    cleanups.push(async () => ledger.close());
    // The same customers in two months whose usage differs: thousands of changed lines, more than a megabyte to keep.
    const organizations = generateOrganizations({ seed: 3, organizations: 200, linesPerOrganization: 40 });
    await save(ledger, OCTOBER, buildBillingReport(organizations, '2026-10-01', '2026-10-31', { seed: 3 }));
    await save(ledger, NOVEMBER, buildBillingReport(organizations, '2026-11-01', '2026-11-30', { seed: 4 }));

    const full = await fillDisk(disk);
    const failure = await compareMonths(ledger, OCTOBER, NOVEMBER).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(/disk is full/);
    expect(await count(ledger, 'kept_comparisons')).toBe(0);
    expect(await count(ledger, 'kept_changes')).toBe(0);

    await full.free();
    const kept = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(kept.changeCount).toBeGreaterThan(1000);
    expect(await count(ledger, 'kept_changes')).toBe(kept.changeCount);
  });

  it('opens the ledger again when a full disk made DuckDB give up on it, so the next step works without a restart', async () => {
    const { path: disk, remove } = await smallDisk(48);
    cleanups.push(remove);
    const handle = new LedgerHandle(disk, silentLogger, { threads: 1 });
    cleanups.push(() => handle.close());
    const ledger = await handle.get();
    const organizations = generateOrganizations({ seed: 3, organizations: 200, linesPerOrganization: 40 });
    await save(ledger, OCTOBER, buildBillingReport(organizations, '2026-10-01', '2026-10-31', { seed: 3 }));
    await save(ledger, NOVEMBER, buildBillingReport(organizations, '2026-11-01', '2026-11-30', { seed: 4 }));
    // Months as an earlier Closebook saved them, without product lines (the removal not yet folded into the file).
    await ledger.write((transaction) => transaction.run('DELETE FROM product_lines'));

    const totals = await ledger.all('SELECT report_id, line_count::INTEGER AS lines FROM report_totals ORDER BY report_id');
    expect(new Set(totals.map((row) => row.report_id))).toEqual(new Set([OCTOBER, NOVEMBER]));

    const full = await fillDisk(disk);
    const failure = await compareMonths(ledger, OCTOBER, NOVEMBER).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(/disk is full.*Nothing of it was kept/);
    // The comparison's steps fail one by one, each rolled back by DuckDB: the ledger goes on.
    expect(ledger.broken).toBe(false);
    expect(await count(ledger, 'kept_comparisons')).toBe(0);
    // A checkpoint (DuckDB's own, after a big commit; here asked for) finds no room to fold the removal into the
    // file: DuckDB then refuses every later statement of that instance.
    await expect(ledger.run('CHECKPOINT')).rejects.toThrow(/disk is full/);
    expect(ledger.broken).toBe(true);

    // The next step, disk still full: the ledger is opened again, with both months whole and nothing of the comparison.
    const reopened = await handle.get();
    expect(reopened).not.toBe(ledger);
    expect(await reopened.all('SELECT report_id, line_count::INTEGER AS lines FROM report_totals ORDER BY report_id')).toEqual(totals);
    expect(await count(reopened, 'kept_comparisons')).toBe(0);

    await full.free();
    const kept = await compareMonths(await handle.get(), OCTOBER, NOVEMBER);
    expect(kept.changeCount).toBeGreaterThan(1000);
    expect(await count(reopened, 'kept_changes')).toBe(kept.changeCount);
  });
});
