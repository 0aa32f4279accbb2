import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerWithMonth } from '@testing/ledger-month';
import { silentLogger } from '../ports/ports';
import { Ledger } from '../ledger/ledger';
import { KeptTopRows } from './viewer-top-rows';

const REPORT = '00000000-0000-4000-8000-000000000001';
const cleanups = cleanupsAfterEach();

async function setup() {
  const month = await ledgerWithMonth({ reportId: REPORT, seed: 14, organizations: 6, linesPerOrganization: 3 });
  cleanups.push(month.close);
  const { ledger } = month;
  const kept = new KeptTopRows(async () => ledger, 2);
  /** Top rows of one made-up filter: every organization (per currency pair) with more than `min` lines. */
  const query = (min: number) => async () => ({
    sql: `SELECT org_no AS key, currency || '→' || customer_currency AS currency_key, count(*) AS lines, sum(cost) AS cost, sum(sales) AS sales, row_number() OVER (ORDER BY org_no) - 1 AS place FROM billing_lines WHERE report_id = $1 GROUP BY org_no, currency, customer_currency HAVING count(*) > ${min}`,
    params: [REPORT],
  });
  /** The temporary tables, once the drops under way are done (settled: they run after the answer that let a table go). */
  const tables = async (settled = true) => {
    if (settled) await kept.settled();
    return (await ledger.all('SELECT table_name FROM duckdb_tables() WHERE temporary ORDER BY table_name')).map((row) => String(row.table_name));
  };
  const [size] = await ledger.all('SELECT count(DISTINCT org_no) AS organizations, count(*) AS lines FROM billing_lines WHERE report_id = $1', [REPORT]);
  return { kept, query, tables, organizations: Number(size!.organizations), lines: Number(size!.lines) };
}

describe('kept top rows', () => {
  it('makes the rows of a key once, and reads them again from the same table', async () => {
    const { kept, query, tables, organizations, lines } = await setup();
    const first = await kept.read('a', query(0), async (rows) => rows);
    expect(first).toMatchObject({ count: organizations, lines });
    expect(await kept.read('a', query(99), async (rows) => rows)).toEqual(first);
    expect(await tables()).toEqual([first.table]);
  });

  it('drops a table it gives up only once the read that gave it up has answered', async () => {
    const { kept, query, tables } = await setup();
    const a = await kept.read('a', query(0), async (rows) => rows.table);
    const b = await kept.read('b', query(1), async (rows) => rows.table);
    // Kept two: making 'c' gives up 'a', whose drop waits until 'c' is answered (it is no statement of that answer).
    const during = await kept.read('c', query(2), async (rows) => [rows.table, ...(await tables(false))]);
    expect(during.slice(1).sort()).toEqual([a, b, during[0]].sort());
    expect(await tables()).toEqual([b, during[0]].sort());
  });

  it('never drops a table while a read of it is running, and drops it once that read is done', async () => {
    const { kept, query, tables, organizations } = await setup();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await kept.read('a', query(0), async () => undefined);
    const slow = kept.read('a', query(0), async (rows, ledger) => {
      await held;
      return ledger.all(`SELECT count(*) AS n FROM temp.${rows.table}`);
    });
    // Two more keys while 'a' is read: it is no longer kept, but still read.
    const b = await kept.read('b', query(1), async (rows) => rows.table);
    const c = await kept.read('c', query(2), async (rows) => rows.table);
    expect(await tables()).toContain(b);
    release();
    expect(Number((await slow)[0]!.n)).toBe(organizations);
    const d = await kept.read('d', query(3), async (rows) => rows.table);
    expect((await tables()).sort()).toEqual([c, d].sort());
  });

  it('forgets the keys of a prefix: their tables go with the next read', async () => {
    const { kept, query, tables } = await setup();
    const first = await kept.read('r1|x', query(0), async (rows) => rows.table);
    kept.forget('r1|');
    const other = await kept.read('r2|x', query(0), async (rows) => rows.table);
    expect(await tables()).toEqual([other]);
    // Asked again, r1|x is made anew: forgotten, not kept.
    expect(await kept.read('r1|x', query(0), async (rows) => rows.table)).not.toBe(first);
  });

  it('tries again after a failed make', async () => {
    const { kept, query, organizations } = await setup();
    await expect(
      kept.read(
        'a',
        async () => ({ sql: 'SELECT * FROM no_such_table', params: [] }),
        async () => undefined,
      ),
    ).rejects.toThrow();
    expect((await kept.read('a', query(0), async (rows) => rows)).count).toBe(organizations);
  });

  it('makes the rows of a key again on a ledger opened anew, whose connection holds none of the old tables', async () => {
    const month = await ledgerWithMonth({ reportId: REPORT, seed: 14, organizations: 6, linesPerOrganization: 3 });
    let ledger = month.ledger;
    cleanups.push(async () => {
      await ledger.close();
      await month.close(); // closes the first ledger again: a no-op
    });
    const kept = new KeptTopRows(async () => ledger, 2);
    const query = async () => ({
      sql: `SELECT DISTINCT org_no AS key, currency || '→' || customer_currency AS currency_key, 1 AS lines, 0 AS cost, 0 AS sales, 0 AS place FROM billing_lines WHERE report_id = $1`,
      params: [REPORT],
    });
    const before = await kept.read('a', query, async (rows, on) => on.all(`SELECT count(*)::INTEGER AS n FROM temp.${rows.table}`));
    await ledger.close(); // as LedgerHandle does with a ledger DuckDB gave up on
    ledger = await Ledger.open(month.dir, silentLogger);
    const after = await kept.read('a', query, async (rows, on) => on.all(`SELECT count(*)::INTEGER AS n FROM temp.${rows.table}`));
    expect(after).toEqual(before);
  });
});
