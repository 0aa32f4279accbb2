import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { money } from '@shared/money';
import { ledgerAtSchema, ledgerWithMonth, type ServedEntries, testIdentity } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { join } from 'node:path';
import { Ledger, type LedgerTransaction } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { ingestReport } from '../reports/report-ingest';
import { compareMonths, type MonthChange, type MonthComparison, ruleChangesBetween } from './month-compare';
import { runBillingChecks } from './billing-checks';
import { rankNamesSql } from '../ledger/name-ranks';
import { byName } from '@testing/name-order';
import { KEPT_TABLES } from '../ledger/migrations/004-kept-comparisons';

type WireBillingEntry = ServedEntries[number];
type WireItem = WireBillingEntry['organizations'][number]['services'][number]['items'][number];
type WireProduct = WireItem['products'][number];

/** Every change of a comparison, read back in one part. */
const allChanges = (comparison: MonthComparison) => comparison.changes(0, comparison.changeCount);

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const cleanups = cleanupsAfterEach();

/** Sets a product line's quantity or unit price and recomputes the totals above it, as the service would. */
function reprice(item: WireItem, product: WireProduct, change: { quantity?: number; customerPricePerUnit?: string }) {
  const places = product.customerPricePerUnit.split('.')[1]?.length ?? 2;
  if (change.quantity !== undefined) product.quantity = change.quantity;
  if (change.customerPricePerUnit !== undefined) product.customerPricePerUnit = change.customerPricePerUnit;
  product.totalCustomerPrice = money(product.customerPricePerUnit).times(product.quantity).toFixed(places);
  product.totalResellerPrice = money(product.resellerPricePerUnit).times(product.quantity).toFixed(places);
  restate(item);
}

function restate(item: WireItem) {
  item.totalCustomerPrice = item.products.reduce((sum, product) => sum.plus(product.totalCustomerPrice), money(0)).toFixed();
  item.totalResellerPrice = item.products.reduce((sum, product) => sum.plus(product.totalResellerPrice), money(0)).toFixed();
}

/** October as the twin serves it, and November: the same month with planted changes (the caller plants them). */
async function twoMonths(plant: (november: WireBillingEntry[]) => void, size = { organizations: 12, linesPerOrganization: 8 }) {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 7, ...size });
  cleanups.push(month.close);
  const november = structuredClone(month.entries);
  plant(november);
  async function* body() {
    yield JSON.stringify({ status: 5, data: november });
  }
  await ingestReport(month.ledger, testIdentity(NOVEMBER, { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
  return { ledger: month.ledger, dir: month.dir, october: month.entries, november };
}

const items = (entries: WireBillingEntry[]) =>
  entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items.map((item) => ({ organization, service, item })))),
  );

describe('comparing two months', () => {
  it('reports each planted change — quantity, unit price, new and lost subscription — and nothing for an unchanged subscription', async () => {
    let planted: { quantity: WireItem; price: WireItem; lost: WireItem; added: WireItem; unchanged: WireItem } | undefined;
    const { ledger } = await twoMonths((november) => {
      const all = items(november).filter(
        ({ service, item }) => service.items.length > 1 && item.products.length === 1 && service.currencyCode === service.customerCurrencyCode,
      );
      const [quantity, price, lost, unchanged] = all.slice(0, 4).map(({ item }) => item) as [WireItem, WireItem, WireItem, WireItem];
      reprice(quantity, quantity.products[0] as WireProduct, { quantity: (quantity.products[0] as WireProduct).quantity + 3 });
      reprice(price, price.products[0] as WireProduct, {
        customerPricePerUnit: money((price.products[0] as WireProduct).customerPricePerUnit)
          .plus('1.25')
          .toFixed(),
      });
      const lostService = all.find(({ item }) => item === lost)?.service;
      lostService?.items.splice(lostService.items.indexOf(lost), 1);
      const added = structuredClone(unchanged);
      added.subscriptionId = '99999999-9999-4999-8999-999999999999';
      added.itemName = 'Added this month';
      all.find(({ item }) => item === unchanged)?.service.items.push(added);
      planted = { quantity, price, lost, added, unchanged };
    });
    const { quantity, price, lost, added, unchanged } = planted!;
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    const changes = await allChanges(comparison);
    const of = (item: WireItem) => changes.filter((change) => change.subscriptionId === item.subscriptionId);

    expect(of(quantity)).toEqual([expect.objectContaining({ kind: 'quantity', level: 'line' })]);
    const [byQuantity] = of(quantity) as [MonthChange];
    expect(money(byQuantity.after!.quantity).minus(byQuantity.before!.quantity).toFixed()).toBe('3');
    expect(byQuantity.effects.quantity).toBe(money(3).times(byQuantity.before!.unitPrice!).toFixed());
    expect(byQuantity.effects.price).toBe('0');

    expect(of(price)).toEqual([expect.objectContaining({ kind: 'price', level: 'line' })]);
    const [byPrice] = of(price) as [MonthChange];
    expect(byPrice.effects.price).toBe(money('1.25').times(byPrice.after!.quantity).toFixed());

    expect(of(lost)).toEqual([expect.objectContaining({ kind: 'lost', level: 'subscription', after: null })]);
    expect(of(added)).toEqual([expect.objectContaining({ kind: 'new', level: 'subscription', before: null })]);
    expect(of(unchanged)).toEqual([]);
    expect(changes).toHaveLength(4);
    expect(comparison.changeCount).toBe(4);
  });

  it("splits each currency's change in sales into price, quantity, new/lost and other that add up exactly", async () => {
    const { ledger } = await twoMonths((november) => {
      for (const [index, { item }] of items(november).entries()) {
        const product = item.products[0] as WireProduct;
        if (index % 3 === 0)
          reprice(item, product, { quantity: product.quantity + 1, customerPricePerUnit: money(product.customerPricePerUnit).times('1.031').toFixed(4) });
        if (index % 5 === 0) product.totalCustomerPrice = money(product.totalCustomerPrice).plus('0.01').toFixed(); // a total that is not q × p
        if (index % 7 === 0) item.products.splice(0, 1);
        restate(item);
      }
      const lostCustomer = november[0]?.organizations[0]?.orgId;
      for (const entry of november) entry.organizations = entry.organizations.filter((organization) => organization.orgId !== lostCustomer);
    });
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(comparison.bridges.length).toBeGreaterThan(1);
    for (const bridge of comparison.bridges) {
      const { price, quantity, newLost, other } = bridge.effects;
      expect(money(price).plus(quantity).plus(newLost).plus(other).toFixed(), bridge.currencyKey).toBe(bridge.change);
      expect(money(bridge.salesAfter).minus(bridge.salesBefore).toFixed()).toBe(bridge.change);
    }
    expect((await allChanges(comparison)).some((change) => change.kind === 'lost' && change.level === 'organization')).toBe(true);
    expect(comparison.bridges.some((bridge) => !money(bridge.effects.other).isZero())).toBe(true);
  });

  it('splits the change in cost the same way, and gives the margin before and after where cost and sales are in one currency', async () => {
    const changed: { pair: string; quantity: number; before: string; after: string }[] = [];
    const { ledger, october, november } = await twoMonths((november) => {
      for (const [index, { service, item }] of items(november).entries()) {
        if (index % 9 === 0) item.products.splice(item.products.length - 1, 1); // a line lost: its cost leaves
        const product = item.products[0];
        const pair =
          service.currencyCode === (service.customerCurrencyCode ?? service.currencyCode)
            ? service.currencyCode
            : `${service.currencyCode}→${service.customerCurrencyCode}`;
        if (product && index % 4 === 0) {
          // The vendor's price rose: the cost per unit only (the customer's price stays).
          const before = String(product.resellerPricePerUnit);
          product.resellerPricePerUnit = money(before).plus('0.5').toFixed();
          product.totalResellerPrice = money(product.resellerPricePerUnit).times(product.quantity).toFixed();
          changed.push({ pair, quantity: product.quantity, before, after: String(product.resellerPricePerUnit) });
        }
        restate(item);
      }
    });
    /** Cost and sales per currency pair, summed here from the served lines (not by the ledger). */
    const sums = (entries: WireBillingEntry[]) => {
      const byPair = new Map<string, { cost: ReturnType<typeof money>; sales: ReturnType<typeof money> }>();
      for (const { service, item } of items(entries)) {
        const customer = service.customerCurrencyCode ?? service.currencyCode;
        const pair = service.currencyCode === customer ? service.currencyCode : `${service.currencyCode}→${customer}`;
        const sum = byPair.get(pair) ?? { cost: money(0), sales: money(0) };
        for (const product of item.products) {
          sum.cost = sum.cost.plus(product.totalResellerPrice);
          sum.sales = sum.sales.plus(product.totalCustomerPrice);
        }
        byPair.set(pair, sum);
      }
      return byPair;
    };
    const [before, after] = [sums(october), sums(november)];
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(comparison.bridges.map((bridge) => bridge.currencyKey).sort()).toEqual([...after.keys()].sort());
    expect(comparison.bridges.some((bridge) => bridge.margin === null)).toBe(true); // the twin sells some services bought in another currency
    for (const bridge of comparison.bridges) {
      const pair = bridge.currencyKey;
      const { cost } = bridge;
      expect([cost.before, cost.after], pair).toEqual([before.get(pair)!.cost.toFixed(), after.get(pair)!.cost.toFixed()]);
      expect(money(cost.before).plus(cost.effects.price).plus(cost.effects.quantity).plus(cost.effects.newLost).plus(cost.effects.other).toFixed(), pair).toBe(
        cost.after,
      );
      expect(cost.change).toBe(money(cost.after).minus(cost.before).toFixed());
      // Only unit costs moved (and lost lines): the price effect is Σ (new unit cost − old) × quantity, exactly.
      const priceEffect = changed
        .filter((line) => line.pair === pair)
        .reduce((sum, line) => sum.plus(money(line.after).minus(line.before).times(line.quantity)), money(0));
      expect(money(cost.effects.price).toFixed(), pair).toBe(priceEffect.toFixed());
      expect(money(cost.effects.quantity).isZero(), pair).toBe(true);
      if (pair.includes('→')) expect(bridge.margin, pair).toBeNull();
      else
        expect(bridge.margin, pair).toEqual({
          before: before.get(pair)!.sales.minus(before.get(pair)!.cost).toFixed(),
          after: after.get(pair)!.sales.minus(after.get(pair)!.cost).toFixed(),
          change: after
            .get(pair)!
            .sales.minus(after.get(pair)!.cost)
            .minus(before.get(pair)!.sales.minus(before.get(pair)!.cost))
            .toFixed(),
        });
    }
    expect(comparison.bridges.some((bridge) => !money(bridge.cost.effects.price).isZero() && !money(bridge.cost.effects.newLost).isZero())).toBe(true);
  });

  it('lists the changes, and the checks their exceptions, in the month’s name order: another order is another kept comparison', async () => {
    const names = ['Zeta AB', 'Åkerberg AB', 'Alpha AB', 'Ørsted A/S', 'Öberg AB', 'Ärla AB', 'Plan 10 AB', 'Plan 9 AB'];
    const { ledger } = await twoMonths((november) => {
      const renamed = new Map<string, string>();
      for (const { organization, item } of items(november)) {
        if (!renamed.has(organization.orgId)) renamed.set(organization.orgId, names[renamed.size % names.length]!);
        organization.name = renamed.get(organization.orgId)!;
        const product = item.products[0]!;
        reprice(item, product, { quantity: product.quantity + 7 }); // a change in every subscription, a jump in some
      }
    });
    for (const order of ['sv', 'en'] as const) {
      await ledger.write(async (transaction) => {
        for (const statement of rankNamesSql(order)) await transaction.run(statement, [NOVEMBER]);
      });
      const organizations = (await allChanges(await compareMonths(ledger, OCTOBER, NOVEMBER))).map((change) => change.organization);
      expect(new Set(organizations).size, order).toBeGreaterThan(4);
      const inTurn = organizations.filter((name, at) => name !== organizations[at - 1]);
      expect(inTurn, order).toEqual([...new Set(organizations)].sort(byName(order)));
      const exceptions = await runBillingChecks(ledger, NOVEMBER, OCTOBER);
      for (const severity of ['high', 'medium', 'low']) {
        const named = exceptions.filter((exception) => exception.severity === severity && exception.organization).map((exception) => exception.organization);
        expect(named, `${order} ${severity}`).toEqual([...named].sort(byName(order)));
      }
    }
  });

  it("lists every change as one line in the order shown, across DuckDB's chunks", async () => {
    const { ledger } = await twoMonths(
      (november) => {
        for (const { item } of items(november))
          for (const product of item.products) reprice(item, product, { customerPricePerUnit: money(product.customerPricePerUnit).plus(1).toFixed() });
      },
      { organizations: 120, linesPerOrganization: 40 },
    );
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(comparison.changeCount).toBeGreaterThan(4_096); // more than two of DuckDB's chunks
    const changes = await allChanges(comparison);
    const parts: Buffer[] = [];
    for await (const part of comparison.listing('  ')) parts.push(part);
    const lines = Buffer.concat(parts).toString('utf8').split('\n');
    expect(lines.pop()).toBe(''); // every line ends with a newline
    expect(lines).toHaveLength(changes.length);
    lines.forEach((line, at) => {
      const change = changes[at]!;
      const where = [change.organization, change.service, change.subscription, change.product].filter(Boolean).join(' / ');
      expect(line.startsWith(`  ${change.kind.padEnd(8)} ${change.level.padEnd(12)} `) && line.includes(` ${where}: `), `line ${at + 1}: ${line}`).toBe(true);
    });
  });

  it('finds what the rules against last month look at without keeping a comparison, exactly as a kept one gives it', async () => {
    let planted: { jump: WireItem; price: WireItem; lost: WireItem; lostOrganization: string; small: WireItem[] } | undefined;
    const { ledger } = await twoMonths((november) => {
      const organizations = november.flatMap((entry) => entry.organizations);
      const lostOrganization = organizations.at(-1)!;
      for (const entry of november) entry.organizations = entry.organizations.filter((organization) => organization.orgId !== lostOrganization.orgId);
      const all = items(november).filter(({ service, item }) => service.items.length > 1 && item.products.length === 1);
      const [jump, price, lost, ...rest] = all.map(({ item }) => item) as [WireItem, WireItem, WireItem, ...WireItem[]];
      reprice(jump, jump.products[0]!, { quantity: jump.products[0]!.quantity * 3 });
      reprice(price, price.products[0]!, { customerPricePerUnit: money(price.products[0]!.customerPricePerUnit).plus('0.75').toFixed() });
      const lostService = all.find(({ item }) => item === lost)?.service;
      lostService?.items.splice(lostService.items.indexOf(lost), 1);
      // Changes the rules do not look at: quantities up by a tenth (not a jump), and a new subscription.
      const small = rest.filter((item) => item.products[0]!.quantity >= 10).slice(0, 4);
      for (const item of small) reprice(item, item.products[0]!, { quantity: item.products[0]!.quantity + 1 });
      const added = structuredClone(rest.at(-1)!);
      added.subscriptionId = '99999999-9999-4999-8999-999999999999';
      all.find(({ item }) => item === rest.at(-1))?.service.items.push(added);
      planted = { jump, price, lost, lostOrganization: lostOrganization.orgId, small };
    });
    const keptComparisons = async () => Number((await ledger.all('SELECT count(*)::INTEGER AS n FROM kept_comparisons'))[0]?.n);

    const found = await ruleChangesBetween(ledger, OCTOBER, NOVEMBER, 50);
    expect(await keptComparisons()).toBe(0); // found without making the whole comparison
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(await keptComparisons()).toBe(1);
    const fromKept = await ruleChangesBetween(ledger, OCTOBER, NOVEMBER, 50);
    expect(found).toEqual(fromKept);

    const { jump, price, lost, lostOrganization, small } = planted!;
    const of = (item: WireItem) => found.filter((change) => change.subscriptionId === item.subscriptionId).map(({ kind, level }) => `${kind} ${level}`);
    expect(of(jump)).toEqual(['quantity line']);
    expect(of(price)).toEqual(['price line']);
    expect(of(lost)).toEqual(['lost subscription']);
    // A whole organization lost: once per currency pair it was billed in.
    const ofOrganization = found.filter((change) => change.orgId === lostOrganization);
    expect(ofOrganization.length).toBeGreaterThan(0);
    expect(new Set(ofOrganization.map(({ kind, level }) => `${kind} ${level}`))).toEqual(new Set(['lost organization']));
    expect(small).toHaveLength(4);
    for (const item of small) expect(of(item)).toEqual([]);
    expect(found).toHaveLength(3 + ofOrganization.length);
    // The same changes, in the same order, as the whole comparison lists them.
    const listed = (await allChanges(comparison)).filter((change) => found.some((rule) => JSON.stringify(rule) === JSON.stringify(change)));
    expect(listed).toEqual(found);
    expect(comparison.changeCount).toBeGreaterThan(found.length);
  });

  // Schema 10: before product lines were kept; 12: kept without their key's hash (migration 13 lets them go).
  it.each([
    [10, 'before product lines were kept'],
    [12, 'with product lines kept without their key hash'],
  ])('compares the months of a ledger saved at schema %i (%s), summing them at the first comparison, as today', async (schema) => {
    const { ledger, dir } = await twoMonths((november) => {
      const all = items(november).filter(({ service, item }) => service.items.length > 1 && item.products.length === 1);
      const [quantity, price, lost] = all.map(({ item }) => item) as [WireItem, WireItem, WireItem];
      reprice(quantity, quantity.products[0]!, { quantity: quantity.products[0]!.quantity + 2 });
      reprice(price, price.products[0]!, { customerPricePerUnit: money(price.products[0]!.customerPricePerUnit).plus('0.5').toFixed() });
      const lostService = all.find(({ item }) => item === lost)?.service;
      lostService?.items.splice(lostService.items.indexOf(lost), 1);
    });
    const today = await compareMonths(ledger, OCTOBER, NOVEMBER);
    const changes = await allChanges(today);
    const rules = await ruleChangesBetween(ledger, OCTOBER, NOVEMBER, 50);
    await ledger.close();
    const earlier = await temporaryDir();
    cleanups.push(() => earlier.remove());
    const donor = join(dir, 'ledger', 'closebook.duckdb');
    const older = await ledgerAtSchema(earlier.path, schema, donor);
    if (schema === 12) {
      // The product lines as that Closebook summed them: the same rows, without the hash.
      await older.connection.run(`ATTACH '${donor}' AS donor (READ_ONLY)`);
      await older.connection.run('INSERT INTO product_lines SELECT * EXCLUDE (key_hash) FROM donor.product_lines');
      expect((await older.connection.runAndReadAll('SELECT count(*) AS n FROM product_lines')).getRowObjectsJson()[0]?.n).not.toBe('0');
      await older.connection.run('DETACH donor');
    }
    older.close();

    const reopened = await Ledger.open(earlier.path, silentLogger);
    cleanups.push(async () => reopened.close());
    const summed = async () => (await reopened.all('SELECT DISTINCT report_id FROM product_lines ORDER BY report_id')).map((row) => row.report_id);
    expect(await summed()).toEqual([]);
    expect(await ruleChangesBetween(reopened, OCTOBER, NOVEMBER, 50)).toEqual(rules);
    expect(await summed()).toEqual([OCTOBER, NOVEMBER]);
    const compared = await compareMonths(reopened, OCTOBER, NOVEMBER);
    expect(await allChanges(compared)).toEqual(changes);
    expect(compared.bridges).toEqual(today.bridges);
    expect(changes.length).toBeGreaterThanOrEqual(3);
  });

  it("lets go of a comparison kept with its organizations' and services' names written out (schema 16), and makes it anew the same", async () => {
    const { ledger, dir } = await twoMonths((november) => {
      const all = items(november).filter(({ service, item }) => service.items.length > 1 && item.products.length === 1);
      const [quantity, lost] = all.map(({ item }) => item) as [WireItem, WireItem];
      reprice(quantity, quantity.products[0]!, { quantity: quantity.products[0]!.quantity + 2 });
      const lostService = all.find(({ item }) => item === lost)?.service;
      lostService?.items.splice(lostService.items.indexOf(lost), 1);
      const gone = november[0]!.organizations.at(-1)!.orgId; // a whole organization lost: a roll-up that names no service
      for (const entry of november) entry.organizations = entry.organizations.filter((organization) => organization.orgId !== gone);
    });
    const today = await compareMonths(ledger, OCTOBER, NOVEMBER);
    const changes = await allChanges(today);
    expect(changes.some((change) => change.level === 'organization' && change.service === '')).toBe(true);
    await ledger.close();
    const earlier = await temporaryDir();
    cleanups.push(() => earlier.remove());
    const donor = join(dir, 'ledger', 'closebook.duckdb');
    const older = await ledgerAtSchema(earlier.path, 16, donor);
    // The changes' table as that Closebook made it, and the comparison it kept under today's key (its changes need not be
    // copied: read under that shape, a kept comparison that was not let go would be read as none, or fail).
    const namesWrittenOut = KEPT_TABLES.kept_changes.replace(
      'subscription VARCHAR,',
      'organization VARCHAR NOT NULL, customer_number VARCHAR NOT NULL, org_id VARCHAR NOT NULL, service VARCHAR NOT NULL, service_id VARCHAR, subscription VARCHAR,',
    );
    expect(namesWrittenOut).not.toBe(KEPT_TABLES.kept_changes);
    await older.connection.run(`DROP TABLE kept_changes; CREATE TABLE kept_changes (${namesWrittenOut})`);
    await older.connection.run(`ATTACH '${donor}' AS donor (READ_ONLY)`);
    for (const table of ['kept_comparisons', 'kept_bridges']) await older.connection.run(`INSERT INTO ${table} SELECT * FROM donor.${table}`);
    await older.connection.run('DETACH donor');
    older.close();

    const reopened = await Ledger.open(earlier.path, silentLogger);
    cleanups.push(async () => reopened.close());
    const columns = async () =>
      (await reopened.all("SELECT column_name FROM duckdb_columns() WHERE table_name = 'kept_changes'")).map((row) => row.column_name);
    expect(await columns()).not.toContain('organization');
    expect(await reopened.all('SELECT count(*)::INTEGER AS kept FROM kept_comparisons')).toEqual([{ kept: 0 }]);
    const anew = await compareMonths(reopened, OCTOBER, NOVEMBER);
    expect(await allChanges(anew)).toEqual(changes);
    expect(anew.bridges).toEqual(today.bridges);
  });

  it('finds no change between a month and itself', async () => {
    const { ledger } = await twoMonths(() => {});
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    expect(await allChanges(comparison)).toEqual([]);
    expect(comparison.changeCount).toBe(0);
    for (const bridge of comparison.bridges) expect(bridge.change).toBe('0');
  });

  it("holds DuckDB to a share of the ledger's memory while it keeps a comparison, and gives the limit back after, also when it fails", async () => {
    const { ledger } = await twoMonths((november) => {
      const { item } = items(november)[0] as { item: WireItem };
      reprice(item, item.products[0] as WireProduct, { quantity: (item.products[0] as WireProduct).quantity + 1 });
    });
    const mebibytes = async (reader: Pick<LedgerTransaction, 'all'>) => {
      const [row] = await reader.all("SELECT current_setting('memory_limit') AS setting");
      const [, amount, unit] = /^([\d.]+) (MiB|GiB)$/.exec(String(row?.setting)) ?? [];
      return Number(amount) * (unit === 'GiB' ? 1024 : 1);
    };
    const ledgerLimit = await mebibytes(ledger);
    expect(ledgerLimit).toBeCloseTo((512 * 1000 * 1000) / 1024 / 1024, 0); // the ledger's 512 MB
    // What DuckDB's limit was as the changes were kept; the second comparison's keeping fails (a full disk, say).
    const whileKeeping: number[] = [];
    let failKeeping = false;
    const derive = ledger.derive.bind(ledger);
    vi.spyOn(ledger, 'derive').mockImplementation((tables, work, steps) =>
      derive(
        tables,
        (transaction) =>
          work({
            ...transaction,
            run: async (sql, params) => {
              if (sql.includes('INSERT INTO kept_changes')) {
                whileKeeping.push(await mebibytes(transaction));
                if (failKeeping) throw new Error('No space left on device');
              }
              await transaction.run(sql, params);
            },
          }),
        steps,
      ),
    );
    expect((await compareMonths(ledger, OCTOBER, NOVEMBER)).changeCount).toBe(1);
    expect(whileKeeping).toHaveLength(1);
    expect(whileKeeping[0]).toBeCloseTo(ledgerLimit * 0.625, 0);
    expect(await mebibytes(ledger)).toBe(ledgerLimit);

    failKeeping = true;
    await expect(compareMonths(ledger, NOVEMBER, OCTOBER)).rejects.toThrow();
    expect(whileKeeping).toHaveLength(2);
    expect(await mebibytes(ledger)).toBe(ledgerLimit);
  });

  it('refuses to compare one fetch with itself (it would read as everything lost and new)', async () => {
    const { ledger } = await twoMonths(() => {});
    await expect(compareMonths(ledger, NOVEMBER, NOVEMBER)).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/two different saved reports/),
    });
  });
});
