import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { money } from '@shared/money';
import { ledgerWithMonth, restateTotals, testIdentity } from '@testing/ledger-month';
import { ingestReport } from '../reports/report-ingest';
import { ReportLibrary } from '../reports/report-library';
import { writeReportWorkbook } from '../reports/report-workbook';
import { monthCloseSheets } from './close-workbook';
import { testPorts } from '@testing/test-support';
import { createClose } from './handlers';
import { MonthClose } from './month-close';
import { compareMonths } from './month-compare';
import { keepComparison } from './queries/compare';

// The real comparison, counted where it is made: a month's comparison is the largest thing its close computes.
vi.mock('./queries/compare', async (importOriginal) => {
  const original = await importOriginal<typeof import('./queries/compare')>();
  return { ...original, keepComparison: vi.fn(original.keepComparison) };
});
const made = () => vi.mocked(keepComparison).mock.calls.map(([, { beforeId, afterId }]) => [beforeId, afterId]);

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const cleanups = cleanupsAfterEach();

/** October, and November with `raised` lines' unit prices raised (each a change, and an exception of the checks). */
async function twoMonths(raised = 1) {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 5, organizations: 10, linesPerOrganization: 6 });
  cleanups.push(month.close);
  const november = structuredClone(month.entries);
  const lines = november.flatMap((entry) =>
    entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items.flatMap((item) => item.products))),
  );
  const product = lines[0];
  if (!product || lines.length < raised) throw new Error('the twin month has too few lines');
  for (const line of lines.slice(0, raised)) {
    line.customerPricePerUnit = money(line.customerPricePerUnit).plus('1.5').toFixed();
    line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed(2);
  }
  restateTotals(november);
  async function* body() {
    yield JSON.stringify({ status: 5, data: november });
  }
  await ingestReport(month.ledger, testIdentity(NOVEMBER, { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
  return { month, product };
}

describe("the workbook's month close", () => {
  it('compares the month with the one before it once, for the checks and the Changes sheet alike', async () => {
    const { month, product } = await twoMonths();
    const close = new MonthClose(async () => month.ledger);
    vi.mocked(keepComparison).mockClear();

    const path = join(month.dir, 'november.xlsx');
    await writeReportWorkbook(month.ledger, await new ReportLibrary(async () => month.ledger).meta(NOVEMBER), path, {
      appVersion: '1.2.3',
      exportedAt: new Date('2026-12-08T10:00:00Z'),
      timeZone: 'Europe/Stockholm',
      addSheets: monthCloseSheets(
        async () => month.ledger,
        (id) => close.state(id),
      ),
    });

    expect(made()).toEqual([[OCTOBER, NOVEMBER]]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const column = (sheet: string, index: number) => (workbook.getWorksheet(sheet)?.getColumn(index).values ?? []).map(String);
    // Both sheets come from that one comparison: the changed unit price is a change, and an exception of the checks.
    expect(column('Changes', 2)).toContain('Product line');
    expect(column('Changes', 9)).toContain(product.productName);
    expect(column('Checks', 2)).toContain('unit-price-changed'); // column 1 names the finding
  });

  it('compares two months once for the Close screen: made ahead when the screen opens, its Compare panel reads what is kept', async () => {
    const { month } = await twoMonths();
    const { ports, cleanup } = await testPorts();
    cleanups.push(cleanup);
    const close = createClose(ports, async () => month.ledger);
    const { handlers } = close;
    vi.mocked(keepComparison).mockClear();

    const state = await handlers['close:state']({ reportId: NOVEMBER });
    expect(state.exceptions.map((exception) => exception.rule)).toContain('unit-price-changed');
    // The checks answer first; the comparison is made after them, in the background, before Compare is clicked.
    await close.settled();
    expect(made()).toEqual([[OCTOBER, NOVEMBER]]);
    const shown = await handlers['close:compare']({ beforeId: OCTOBER, afterId: NOVEMBER });
    expect(made()).toEqual([[OCTOBER, NOVEMBER]]);
    // The same as the comparison kept, read whole.
    const kept = await compareMonths(month.ledger, OCTOBER, NOVEMBER);
    expect(made()).toHaveLength(1);
    expect(shown).toEqual({
      beforeId: OCTOBER,
      afterId: NOVEMBER,
      bridges: kept.bridges,
      changeCount: kept.changeCount,
      kinds: kept.kinds,
      changes: await kept.changes(0, kept.changeCount),
    });
    expect(shown.changes.length).toBeGreaterThan(0);
  });
});
