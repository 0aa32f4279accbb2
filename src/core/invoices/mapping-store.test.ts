import { describe, expect, it } from 'vitest';
import { CustomerMapping, ItemMapping } from '@shared/schemas/invoices';
import { AppError } from '@shared/errors';
import { Ledger } from '@core/ledger/ledger';
import { silentLogger } from '@core/ports/ports';
import { cleanupsAfterEach } from '@testing/cleanups';
import { useLedger } from '@testing/ledger-month';
import { fillDisk, smallDisk } from '@testing/test-support';
import { readMapping, saveMapping } from './mapping-store';

const ledger = useLedger();
const broker = { host: 'billing.example.com', resellerId: 'reseller-1' };
const at = '2026-11-09T10:00:00.000Z';

const customer = (index: number, contactName = `Customer ${index} (AR)`) =>
  CustomerMapping.parse({
    orgId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    contactName,
    customerNumber: `C-${index}`,
    paymentTermsDays: 30,
    vatTreatment: 'domestic',
    country: 'SE',
  });
const item = (index: number, account = '3010') =>
  ItemMapping.parse({ match: 'product', id: `P-${index}`, account, taxCode: '25% (VAT on Income)', vatCategory: 'S', vatRate: '25' });

describe('the kept mapping', () => {
  it('names a kept entry it cannot read, whether its text is not JSON or not a mapping, and says how to replace it', async () => {
    await saveMapping(ledger(), broker, { customers: [customer(1)], items: [item(1)] }, 'anna', at, true);
    for (const kept of ['{"orgId": 5}', 'not json {']) {
      await ledger().run('UPDATE invoice_customers SET mapping = $1', [kept]);
      const read = readMapping(ledger(), broker);
      await expect(read).rejects.toBeInstanceOf(AppError);
      await expect(read).rejects.toThrow(/^A kept customer mapping could not be read \(.*\)\. Import the mapping again to replace it\.$/);
    }
  });

  it("keeps a whole import of 10,000 customers (a million-line month's) at once, exactly, replacing the one before", async () => {
    await saveMapping(ledger(), broker, { customers: [customer(0, 'Gone AB')], items: [item(999)] }, 'anna', at, true);
    const customers = Array.from({ length: 10_000 }, (_, index) => customer(index));
    const items = Array.from({ length: 40 }, (_, index) => item(index));
    const started = performance.now();
    await saveMapping(ledger(), broker, { customers, items }, 'anna', at, true);
    // One statement per entry took 20 s and ran DuckDB out of memory at this size.
    expect(performance.now() - started).toBeLessThan(5_000);
    const kept = await readMapping(ledger(), broker);
    expect(kept.customers).toEqual([...customers].sort((a, b) => a.orgId.localeCompare(b.orgId)));
    expect(kept.items).toEqual([...items].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('adds or replaces single entries without touching the rest; an entry given twice is kept as given last', async () => {
    await saveMapping(
      ledger(),
      broker,
      { customers: [customer(1, 'First AB'), customer(1, 'Last AB'), customer(20_000)], items: [item(3, '3099')] },
      'bo',
      at,
      false,
    );
    const kept = await readMapping(ledger(), broker);
    expect(kept.customers).toHaveLength(10_001);
    expect(kept.customers.find((entry) => entry.orgId === customer(1).orgId)?.contactName).toBe('Last AB');
    expect(kept.customers.find((entry) => entry.orgId === customer(2).orgId)?.contactName).toBe('Customer 2 (AR)');
    expect(kept.items.filter((entry) => entry.account === '3099').map((entry) => entry.id)).toEqual(['P-3']);
    expect(kept.items).toHaveLength(40);
  });
});

describe('the kept mapping on a full disk', () => {
  const cleanups = cleanupsAfterEach();

  it('is refused in words, the mapping before kept whole, and kept once there is room', async () => {
    const { path: disk, remove } = await smallDisk(48);
    cleanups.push(remove);
    const before = { customers: [customer(1), customer(2)], items: [item(1)] };
    let ledger = await Ledger.open(disk, silentLogger, { threads: 1 });
    await saveMapping(ledger, broker, before, 'anna', at, true);
    const full = await fillDisk(disk);
    const whole = { customers: Array.from({ length: 10_000 }, (_, index) => customer(index)), items: [item(2)] };
    const failure = await saveMapping(ledger, broker, whole, 'anna', at, true).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toMatch(/disk is full/i);
    // What DuckDB gave up on is opened again, as the app's ledger handle does after a failed write.
    await ledger.close().catch(() => undefined);
    ledger = await Ledger.open(disk, silentLogger, { threads: 1 });
    cleanups.push(() => ledger.close());
    expect(await readMapping(ledger, broker)).toEqual(before);

    await full.free();
    await saveMapping(ledger, broker, whole, 'anna', at, true);
    expect((await readMapping(ledger, broker)).customers).toHaveLength(10_000);
  }, 60_000);
});
