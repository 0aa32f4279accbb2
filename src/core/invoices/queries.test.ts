import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '@core/ledger/ledger';
import { silentLogger } from '@core/ports/ports';
import { money } from '@shared/money';
import { ledgerWithMonth } from '@testing/ledger-month';
import { ORGANIZATION_ORDER } from '@core/reports';
import { invoiceLineRows, unmappedCustomerRows } from './queries';

const REPORT = 'e3f1c2a4-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
let month: Awaited<ReturnType<typeof ledgerWithMonth>>;
/** Every organization's exact sales per customer currency and its line count, from the lines as served. */
const served = new Map<string, { sales: string; lines: number }>();
let orgIds: string[] = [];

beforeAll(async () => {
  month = await ledgerWithMonth({
    reportId: REPORT,
    seed: 41,
    organizations: 12,
    linesPerOrganization: 6,
    // One organization without an id: it can never be mapped, whatever the mapping holds.
    change: (entries) => {
      entries[0]!.organizations[0]!.orgId = '';
    },
  });
  for (const { organization, service, line } of month.lines) {
    const key = `${organization.orgId || `${organization.name}|${organization.customerNumber}`}|${service.customerCurrencyCode}`;
    const sum = served.get(key) ?? { sales: '0', lines: 0 };
    served.set(key, { sales: money(sum.sales).plus(line.totalCustomerPrice).toFixed(), lines: sum.lines + 1 });
  }
  orgIds = [...new Set(month.lines.map(({ organization }) => organization.orgId).filter(Boolean))];
});

afterAll(() => month?.close());

const NO_ITEMS = { product: [], itemCode: [], service: [] };

describe('the invoice run in SQL', () => {
  it('brings the lines of mapped customers only, and sums the others per currency exactly, each once, the id-less among them', async () => {
    const mapped = orgIds.slice(0, 5);
    const lines = await invoiceLineRows(month.ledger, REPORT, NO_ITEMS, [...mapped, ''], { linesPer: 'subscription', splitByPo: false });
    expect(new Set(lines.map((row) => row.org_id))).toEqual(new Set(mapped));
    const unmapped = await unmappedCustomerRows(month.ledger, REPORT, [...mapped, '']);
    expect(unmapped.some((row) => row.org_id === '')).toBe(true);
    expect(unmapped.every((row) => !mapped.includes(row.org_id))).toBe(true);

    // Together they are the month, line for line and to the last decimal.
    const summed = new Map<string, { sales: string; lines: number }>();
    for (const row of [...lines, ...unmapped]) {
      const key = `${row.org_key}|${row.currency}`;
      const sum = summed.get(key) ?? { sales: '0', lines: 0 };
      summed.set(key, { sales: money(sum.sales).plus(row.sales).toFixed(), lines: sum.lines + row.lines });
    }
    expect(summed).toEqual(served);
    // One row per organization and currency, organizations together, as every list orders them.
    const keys = unmapped.map((row) => `${row.org_key}|${row.currency}`);
    expect(new Set(keys).size).toBe(keys.length);
    const organizations = unmapped.map((row) => row.org_key).filter((key, index, all) => key !== all[index - 1]);
    expect(new Set(organizations).size).toBe(organizations.length);
  });

  it('with every customer mapped, lists only the one without an id and brings every other line', async () => {
    const idless = [...served].filter(([key]) => !orgIds.some((id) => key.startsWith(`${id}|`)));
    expect(idless.length).toBeGreaterThan(0);
    const unmapped = await unmappedCustomerRows(month.ledger, REPORT, orgIds);
    expect(unmapped.map((row) => [`${row.org_key}|${row.currency}`, row.lines]).sort()).toEqual(idless.map(([key, sum]) => [key, sum.lines]).sort());
    const lines = await invoiceLineRows(month.ledger, REPORT, NO_ITEMS, orgIds, { linesPer: 'product', splitByPo: false });
    expect(lines.reduce((total, row) => total + row.lines, 0)).toBe(month.lines.length - idless.reduce((total, [, sum]) => total + sum.lines, 0));
  });
});

describe('the order of the invoice lines', () => {
  // PO numbers the ledger orders differently from JavaScript's own < (past U+FFFF against U+FFFD), cases, a prefix.
  const PO_NUMBERS = ['PO-b', '😀-y', '', 'PO-a', '\uFFFD-x', 'po-a', 'PO-a ', 'Ä-1'];

  it('is the invoices’: organization as lists put them, customer currency, PO number as the ledger orders text, then the report’s order', async () => {
    const withPo = await ledgerWithMonth({
      reportId: REPORT,
      seed: 11,
      organizations: 8,
      linesPerOrganization: 24,
      change: (entries) => {
        const subscriptions = entries.flatMap((entry) =>
          entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items)),
        );
        subscriptions.forEach((subscription, index) => {
          subscription.poNumber = PO_NUMBERS[index % PO_NUMBERS.length] as string;
        });
      },
    });
    try {
      const ids = [...new Set(withPo.lines.map(({ organization }) => organization.orgId))];
      const lines = await invoiceLineRows(withPo.ledger, REPORT, NO_ITEMS, ids, { linesPer: 'subscription', splitByPo: true });
      expect(new Set(lines.map((line) => line.po))).toEqual(new Set(PO_NUMBERS));
      const ranks = new Map(
        (
          (await withPo.ledger.all(`SELECT DISTINCT org_key, org_rank::INTEGER AS org_rank FROM (${ORGANIZATION_ORDER})`, [REPORT])) as {
            org_key: string;
            org_rank: number;
          }[]
        ).map((row) => [row.org_key, row.org_rank]),
      );
      // The same lines put in order by DuckDB itself.
      const keyed = lines.map((line, index) => ({ index, rank: ranks.get(line.org_key), currency: line.currency, po: line.po, first: line.first_line }));
      const ordered = (await withPo.ledger.all(
        `SELECT (j->>'index')::INTEGER AS index FROM (SELECT unnest(from_json($1, '["JSON"]')) AS j)
         ORDER BY (j->>'rank')::INTEGER, j->>'currency', j->>'po', (j->>'first')::INTEGER`,
        [JSON.stringify(keyed)],
      )) as { index: number }[];
      expect(ordered.map((row) => row.index)).toEqual(lines.map((_, index) => index));
      // Each organization's lines together, with more than one PO number in each (so the PO order is what is tested).
      const organizations = lines.map((line) => line.org_key).filter((key, index, all) => key !== all[index - 1]);
      expect(organizations.length).toBe(ids.length);
      for (const organization of organizations)
        expect(new Set(lines.filter((line) => line.org_key === organization).map((line) => line.po)).size).toBeGreaterThan(1);
    } finally {
      await withPo.close();
    }
  });
});

describe('the invoice lines of a larger month', () => {
  it("are read within 40 MB of DuckDB's memory, where the result held whole took 64 MB, the same lines", async () => {
    const larger = await ledgerWithMonth({ reportId: REPORT, seed: 5, organizations: 300, linesPerOrganization: 100 });
    try {
      const ids = [...new Set(larger.lines.map(({ organization }) => organization.orgId))];
      const read = (ledger: Ledger) => invoiceLineRows(ledger, REPORT, NO_ITEMS, ids, { linesPer: 'subscription', splitByPo: false });
      const atDefault = await read(larger.ledger);
      await larger.ledger.close();
      // 30,085 lines: distinct products counted in one pass and the result held whole took 64 MB (it failed at 48);
      // summed on short keys and read a chunk at a time, 32 MB.
      const small = await Ledger.open(larger.dir, silentLogger, { memoryLimitMb: 40 });
      try {
        expect(await read(small)).toEqual(atDefault);
      } finally {
        await small.close();
      }
      expect(atDefault.reduce((total, row) => total + row.lines, 0)).toBe(larger.lines.length);
    } finally {
      await rm(larger.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
