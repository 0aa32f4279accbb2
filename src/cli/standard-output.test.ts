import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '@testing/simulator';
import { indentedJsonArray, jsonInParts } from './standard-output';

describe('standard output that cannot be written', () => {
  it('a full disk ends the command in words, exit 2, not in a stack trace', () => {
    const full = openSync('/dev/full', 'w'); // every write to it fails with ENOSPC, as on a full disk
    try {
      const result = spawnSync(CLI[0], [CLI[1], 'help'], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 30_000 });
      expect([result.status, result.stderr]).toEqual([
        2,
        'closebook: standard output could not be written (ENOSPC: no space left on device, write), so it is incomplete: ' +
          'free some space on that disk (or send the output elsewhere) and run the command again.\n',
      ]);
    } finally {
      closeSync(full);
    }
  });

  it('a reader that stopped early (| head) ends the command quietly, exit 0', async () => {
    const child = spawn(CLI[0], [CLI[1], 'help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the command writes: its write fails with EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([status, stderr]).toEqual([0, '']);
  });
});

describe('jsonInParts', () => {
  it('writes what JSON.stringify writes, the named array an item at a time', () => {
    const values: Record<string, unknown>[] = [
      { a: 1, invoices: [{ n: 'x', lines: [1, 2] }, { n: 'é"\\\n' }], b: 'text' },
      { invoices: [] },
      { left: undefined, fn: () => 1, invoices: [undefined, null, 0, '', { deep: { er: [true] } }], after: null },
      { first: 'no array here' },
      { invoices: 'not an array', n: [1] },
    ];
    for (const value of values) expect([...jsonInParts(value, 'invoices')].join('')).toBe(JSON.stringify(value));
  });

  it('never makes the array whole: one part an item', () => {
    const invoices = Array.from({ length: 1000 }, (_, index) => ({ index, text: 'x'.repeat(100) }));
    const parts = [...jsonInParts({ periodText: 'October', invoices }, 'invoices')];
    expect(parts.length).toBeGreaterThan(1000);
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThan(200);
  });
});

describe('indentedJsonArray', () => {
  async function* handedOn(batches: unknown[][]) {
    yield* batches;
  }
  const written = async (batches: unknown[][]) => {
    const parts: string[] = [];
    for await (const part of indentedJsonArray(handedOn(batches))) parts.push(part);
    return parts.join('');
  };

  it('writes what JSON.stringify(items, null, 2) writes, and a newline, from batches of any size, empty ones too', async () => {
    const items = [{ kind: 'new', before: null, after: { quantity: '3', nested: [1, { deep: 'é"\\\n' }] } }, { kind: 'lost' }, 'text', 0, [], {}];
    const whole = `${JSON.stringify(items, null, 2)}\n`;
    expect(await written([items])).toBe(whole);
    expect(await written([[], items.slice(0, 1), [], items.slice(1, 4), items.slice(4), []])).toBe(whole);
    expect(await written(items.map((item) => [item]))).toBe(whole);
  });

  it('writes an empty array as JSON.stringify does', async () => {
    expect(await written([])).toBe('[]\n');
    expect(await written([[], []])).toBe('[]\n');
  });
});
