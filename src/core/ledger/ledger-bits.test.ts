import { describe, expect, it } from 'vitest';
import { DuckDBBitValue, DuckDBInstance } from '@duckdb/node-api';
import { LedgerBits } from './ledger';

describe('a set of bits', () => {
  it('says what share of its bits are set, whatever its padding holds', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      // DuckDB pads a BIT to whole bytes with bits set; the share counts the set's own bits only.
      const made = async (sql: string) => new LedgerBits((await connection.runAndReadAll(sql)).getRows()[0]![0] as DuckDBBitValue);
      expect((await made('SELECT bitstring_agg(x, 0, 9) FROM (VALUES (1), (3), (9)) t(x)')).setShare()).toBe(0.3);
      expect((await made('SELECT bitstring_agg(x, 0, 7) FROM (VALUES (0), (7)) t(x)')).setShare()).toBe(0.25);
      expect((await made('SELECT bitstring_agg(x, 0, 599999) FROM range(0, 600000, 4) t(x)')).setShare()).toBe(0.25);
      expect((await made("SELECT '1'::BIT")).setShare()).toBe(1);
      expect((await made("SELECT '0'::BIT")).setShare()).toBe(0);
      expect(new LedgerBits(DuckDBBitValue.fromString('0000000011')).setShare()).toBe(0.2);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
