import { describe, expect, it } from 'vitest';
import type { ReportWindow, TreeRow } from '@shared/contract';
import { stateKeyOf, type TreeQuery, TreeWindowCache, type TreeSnapshot } from './tree-window-cache';

const base: TreeQuery = {
  reportId: 'r',
  filter: {},
  sort: { key: 'label', direction: 'asc' },
  expansion: { all: 'none', toggled: [] },
  hierarchy: 'organization',
};

function row(label: string): TreeRow {
  return {
    key: label,
    level: 'organization',
    depth: 0,
    label,
    detail: '',
    currencyKey: 'SEK',
    hasChildren: true,
    expanded: false,
    lines: 1,
    quantity: '1',
    unitCost: null,
    unitPrice: null,
    poNumber: null,
    billingDate: null,
    cost: '1',
    sales: '2',
    margin: '1',
    marginPercent: '50.00',
    mismatch: null,
  };
}

/** A fake `reports:window` whose answers the test releases one by one, in any order. */
function fakeWindows(rowCount: number) {
  const pending: { request: TreeQuery & { offset: number; count: number }; release: () => void; fail: (error: Error) => void }[] = [];
  const fetchWindow = (request: TreeQuery & { offset: number; count: number }) =>
    new Promise<ReportWindow>((resolve, reject) => {
      const rows = Array.from({ length: Math.max(0, Math.min(request.count, rowCount - request.offset)) }, (_, i) =>
        row(`${request.filter.text ?? ''}#${request.offset + i}`),
      );
      // The totals name the filter and the window they came with, so a test can tell which answer's it shows.
      const totals = [
        { currencyKey: `${request.filter.text ?? ''}@${request.offset}`, lines: rowCount, cost: '1', sales: '2', margin: '1', marginPercent: '50.00' },
      ];
      pending.push({
        request,
        release: () => resolve({ rowCount, lineCount: rowCount, totalLines: rowCount, offset: request.offset, rows, totals }),
        fail: reject,
      });
    });
  return { fetchWindow, pending };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(rowCount = 1_000, options = {}) {
  const fake = fakeWindows(rowCount);
  const snapshots: TreeSnapshot[] = [];
  const errors: unknown[] = [];
  const cache = new TreeWindowCache(
    fake.fetchWindow,
    (snapshot) => snapshots.push(snapshot),
    (error) => errors.push(error),
    { pageSize: 100, ...options },
  );
  return { cache, snapshots, errors, pending: fake.pending, latest: () => snapshots.at(-1) };
}

describe('TreeWindowCache', () => {
  it('asks for the page in view, then only the pages the view moves to', async () => {
    const { cache, pending, latest } = setup();
    cache.setWanted(0, 30);
    cache.setQuery(base);
    expect(pending.map((p) => p.request.offset)).toEqual([0]);
    pending[0]!.release();
    await settle();
    expect(latest()?.rowCount).toBe(1_000);
    expect(latest()?.rowAt(5)?.label).toBe('#5');
    expect(latest()?.rowAt(150)).toBeUndefined();

    cache.setWanted(0, 30); // already here: nothing asked
    cache.setWanted(950, 999);
    expect(pending.map((p) => p.request.offset)).toEqual([0, 900]);
    pending[1]!.release();
    await settle();
    expect(latest()?.rowAt(999)?.label).toBe('#999');
    expect(latest()?.rowAt(5)?.label).toBe('#5'); // still cached
  });

  it('shows the totals that came with a state’s first window, keeps them while it scrolls, and the old ones until a new state answers', async () => {
    const { cache, pending, latest } = setup();
    cache.setWanted(0, 30);
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    expect(latest()?.totals.map((total) => total.currencyKey)).toEqual(['@0']);
    cache.setWanted(950, 999);
    pending[1]!.release();
    await settle();
    expect(latest()?.rowAt(999)).toBeDefined();
    expect(latest()?.totals.map((total) => total.currencyKey)).toEqual(['@0']); // the same totals, not redrawn
    cache.setQuery({ ...base, filter: { text: 'a' } });
    expect(latest()?.totals.map((total) => total.currencyKey)).toEqual(['@0']);
    pending[2]!.release();
    await settle();
    expect(latest()?.totals.map((total) => total.currencyKey)).toEqual(['a@0']);
  });

  it('ignores answers for a state no longer shown, and keeps the old rows until the new state answers', async () => {
    const { cache, pending, latest } = setup();
    cache.setWanted(0, 30);
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    cache.setQuery({ ...base, filter: { text: 'a' } });
    cache.setQuery({ ...base, filter: { text: 'ab' } });
    expect(pending.map((p) => p.request.filter.text)).toEqual([undefined, 'a', 'ab']);
    pending[2]!.release();
    await settle();
    expect(latest()?.rowAt(0)?.label).toBe('ab#0');
    pending[1]!.release(); // late answer for "a"
    await settle();
    expect(latest()?.rowAt(0)?.label).toBe('ab#0');
  });

  it('discards the cache when the state changes; a new expansion keeps the place, a new sort goes to the top', async () => {
    const { cache, pending, latest } = setup();
    cache.setWanted(0, 30);
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    cache.setWanted(500, 530);
    pending[1]!.release();
    await settle();
    cache.setQuery({ ...base, expansion: { all: 'organizations', toggled: [] } });
    expect(pending[2]!.request.offset).toBe(500);
    pending[2]!.release();
    await settle();
    expect(latest()?.rowAt(0)).toBeUndefined();
    expect(latest()?.rowAt(510)).toBeDefined();

    cache.setQuery({ ...base, expansion: { all: 'organizations', toggled: [] }, sort: { key: 'cost', direction: 'desc' } });
    expect(pending[3]!.request.offset).toBe(0);
  });

  it('asks again, from the top and with the hierarchy, when the hierarchy changes', async () => {
    const { cache, pending, latest } = setup();
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    cache.setWanted(500, 530);
    pending[1]!.release();
    await settle();
    cache.setQuery({ ...base, hierarchy: 'service' });
    expect(pending[2]!.request).toMatchObject({ hierarchy: 'service', offset: 0 });
    pending[2]!.release();
    await settle();
    expect(latest()?.rowAt(510)).toBeUndefined(); // the organization tree's rows are not this tree's
    expect(stateKeyOf({ ...base, hierarchy: 'service' })).not.toBe(stateKeyOf(base));
  });

  it('keeps at most maxPages pages, dropping the farthest from view', async () => {
    const { cache, pending, latest } = setup(10_000, { maxPages: 3 });
    cache.setQuery(base);
    for (const start of [0, 1_000, 2_000, 3_000]) {
      cache.setWanted(start, start + 20);
      pending.at(-1)!.release();
      await settle();
    }
    expect(latest()?.rowAt(0)).toBeUndefined();
    expect(latest()?.rowAt(3_000)).toBeDefined();
    expect(latest()?.rowAt(1_000)).toBeDefined();
  });

  it('stops asking after a failure until retried', async () => {
    const { cache, pending, errors, latest } = setup();
    cache.setQuery(base);
    pending[0]!.fail(new Error('ledger busy'));
    await settle();
    expect(errors).toHaveLength(1);
    cache.setWanted(0, 50);
    expect(pending).toHaveLength(1);
    cache.retry();
    pending[1]!.release();
    await settle();
    expect(latest()?.rowAt(0)).toBeDefined();
  });

  it('drops answers after dispose, and loads again when the same state is set after it (a StrictMode remount)', async () => {
    const { cache, pending, snapshots } = setup();
    cache.setQuery(base);
    cache.dispose();
    pending[0]!.release();
    await settle();
    expect(snapshots).toHaveLength(0);
    cache.setQuery(base);
    expect(pending).toHaveLength(2);
    pending[1]!.release();
    await settle();
    expect(snapshots).toHaveLength(1);
  });

  it('reads a range of rows from the cache, asking only for the pages it has not got', async () => {
    const { cache, pending, latest } = setup();
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    expect(latest()?.indexOf('#42')).toBe(42);
    expect(latest()?.indexOf('#420')).toBeUndefined();
    const reading = cache.rowsIn(95, 205);
    await settle();
    expect(pending.slice(1).map((p) => p.request.offset)).toEqual([100]);
    pending[1]!.release();
    await settle();
    expect(pending.slice(2).map((p) => p.request.offset)).toEqual([200]);
    pending[2]!.release();
    const rows = await reading;
    expect(rows.map((row) => row.label)).toEqual(Array.from({ length: 111 }, (_, i) => `#${95 + i}`));
    // Past the end: only the rows there are.
    expect((await cache.rowsIn(0, 5)).length).toBe(6);
  });

  it('fails a range read when the state changes meanwhile', async () => {
    const { cache, pending } = setup();
    cache.setQuery(base);
    pending[0]!.release();
    await settle();
    const reading = cache.rowsIn(0, 150);
    await settle();
    cache.setQuery({ ...base, sort: { key: 'cost', direction: 'desc' } });
    pending[1]!.release();
    await expect(reading).rejects.toThrow(/select them again/);
  });

  it('treats the order of toggled keys and empty filter fields as the same state', () => {
    expect(stateKeyOf({ ...base, filter: { text: '', ungrouped: false }, expansion: { all: 'none', toggled: ['b', 'a'] } })).toBe(
      stateKeyOf({ ...base, expansion: { all: 'none', toggled: ['a', 'b'] } }),
    );
    expect(stateKeyOf({ ...base, filter: { ungrouped: true } })).not.toBe(stateKeyOf(base));
  });
});
