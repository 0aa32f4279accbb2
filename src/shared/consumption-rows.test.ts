import { describe, expect, it } from 'vitest';
import { canonicalRecords, emptyRow, failureStillApplies, fieldForHeader, joinFailures, parseYesNo, readQuantity, validateRows } from './consumption-rows';
import type { InputRow } from './schemas/consumption';

const SUB = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const SUB2 = '6b1c3d2e-1111-4222-8333-944455556666';
const ADDON = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const row = (n: number, fields: Partial<Omit<InputRow, 'row'>>): InputRow => ({
  row: n,
  subscriptionId: SUB,
  isAddon: 'no',
  addonId: '',
  quantity: '1',
  consumptionId: '',
  ...fields,
});

describe('header matching', () => {
  it('takes the spec names and plain words in any case and spacing', () => {
    expect(['subscriptionId', 'Subscription ID', 'SUBSCRIPTION_ID', ' subscription-id '].map(fieldForHeader)).toEqual(Array(4).fill('subscriptionId'));
    expect(['isAddon', 'Is add-on', 'IS ADD ON'].map(fieldForHeader)).toEqual(Array(3).fill('isAddon'));
    expect(['addonId', 'Add-on ID'].map(fieldForHeader)).toEqual(['addonId', 'addonId']);
    expect(['Consumption ID', 'consumptionid'].map(fieldForHeader)).toEqual(['consumptionId', 'consumptionId']);
    expect(fieldForHeader('Notes')).toBeUndefined();
  });
});

describe('cell values', () => {
  it('reads yes/no words', () => {
    expect(['true', 'YES', 'y', '1'].map(parseYesNo)).toEqual([true, true, true, true]);
    expect(['false', 'No', 'n', '0', ''].map(parseYesNo)).toEqual([false, false, false, false, false]);
    expect(parseYesNo('maybe')).toBeUndefined();
  });

  it('reads quantities with a decimal point or an unambiguous decimal comma, and grouping', () => {
    const read = (value: string, decimalComma = false) => {
      const reading = readQuantity(value, decimalComma);
      return 'quantity' in reading ? reading.quantity : reading.problem;
    };
    expect(['12.5', '12,5', '0,500', '1234,567', '1.234', '1,2345', '+3'].map((value) => read(value))).toEqual([12.5, 12.5, 0.5, 1234.567, 1.234, 1.2345, 3]);
    // Both marks: the right one is the decimal mark. The same mark more than once groups thousands.
    expect(['1,250.75', '1.250,75', '1 250,5', "1'250.5", '1,234,567', '1.234.567', '1234.5'].map((value) => read(value))).toEqual([
      1250.75, 1250.75, 1250.5, 1250.5, 1234567, 1234567, 1234.5,
    ]);
    // A comma before exactly three digits could be either: refused, saying how to write each.
    expect(read('1,234')).toBe('"1,234" could be a thousand or a decimal: write 1234 for a whole number, or 1.234 with a decimal point.');
    expect(read('999,000')).toMatch(/write 999000 for a whole number, or 999.000/);
    for (const value of ['12,5,1', '1,23.4.5', '12,34.5', '1e3', 'Infinity', 'ten', '1 2,3.4', '.']) expect(read(value)).toBe(`"${value}" is not a number.`);
    // A file that declares the decimal comma (';'-separated) reads "1,234" as 1.234 and points before its comma as grouping.
    expect(['12,5', '1,234', '1.250,5', '1 250,5', '1.234.567', '1.234.567,5'].map((value) => read(value, true))).toEqual([
      12.5, 1.234, 1250.5, 1250.5, 1234567, 1234567.5,
    ]);
    // A point that cannot group thousands is the decimal mark there too: never a quantity a thousand times too large.
    expect(['0.125', '1.5', '1234.567', '0.500', '-0.125'].map((value) => read(value, true))).toEqual([0.125, 1.5, 1234.567, 0.5, -0.125]);
    // One point before three digits could be either; refused there, as "1,234" is in a file with the decimal point.
    expect(read('1.500', true)).toBe('"1.500" could be a thousand or a decimal: write 1500 for a whole number, or 1,500 with a decimal comma.');
    for (const value of ['12.34,5', '1,2,3', '1,234.5']) expect(read(value, true)).toBe(`"${value}" is not a number.`);
    expect(read('-2,5')).toBe(-2.5);
  });
});

describe('validateRows', () => {
  it('accepts a valid batch and builds the records of spec §2.4', () => {
    const result = validateRows([row(2, { quantity: '12.5' }), row(3, { isAddon: 'yes', addonId: ADDON, quantity: '3', consumptionId: SUB2 })]);
    expect(result.problems).toEqual([]);
    expect(result.records).toEqual([
      { subscriptionId: SUB, isAddon: false, quantity: 12.5 },
      { subscriptionId: SUB, isAddon: true, addonId: ADDON, quantity: 3, consumptionId: SUB2 },
    ]);
    expect(result.recordRows).toEqual([2, 3]);
  });

  it('names the row and field of every problem', () => {
    const { problems, records } = validateRows([
      row(2, { subscriptionId: '' }),
      row(3, { subscriptionId: 'abc' }),
      row(4, { isAddon: 'maybe' }),
      row(5, { subscriptionId: SUB2, isAddon: 'yes' }),
      row(6, { subscriptionId: SUB2, isAddon: 'no', addonId: ADDON }),
      row(7, { subscriptionId: SUB2, quantity: '-1' }),
      row(8, { subscriptionId: SUB2, quantity: 'ten' }),
      row(9, { subscriptionId: SUB2, quantity: '' }),
      row(10, { subscriptionId: SUB2, quantity: '2', consumptionId: 'x' }),
    ]);
    expect(problems.map((p) => `${p.row}:${p.field}`)).toEqual([
      '2:subscriptionId',
      '3:subscriptionId',
      '4:isAddon',
      '5:addonId',
      '6:addonId',
      '7:quantity',
      '8:quantity',
      '9:quantity',
      '10:consumptionId',
    ]);
    expect(problems.find((p) => p.row === 5)?.message).toMatch(/required when Is add-on is yes/);
    expect(problems.find((p) => p.row === 6)?.message).toMatch(/Is add-on is no/);
    expect(problems.find((p) => p.row === 7)?.message).toMatch(/zero or more/);
    expect(records).toEqual([]);
  });

  it('flags the same subscription or add-on twice in one batch, pointing at the first', () => {
    const { problems } = validateRows([
      row(2, {}),
      row(3, { subscriptionId: SUB.toUpperCase() }),
      row(4, { isAddon: 'yes', addonId: ADDON }),
      row(5, { isAddon: '1', addonId: ADDON }),
    ]);
    expect(problems.map((p) => [p.row, p.field, p.message])).toEqual([
      [3, 'subscriptionId', expect.stringContaining('already on row 2')],
      [5, 'addonId', expect.stringContaining('already on row 4')],
    ]);
  });

  it('reads a typed or pasted decimal comma, and refuses a comma that could be a thousands separator', () => {
    const { records, problems } = validateRows([row(2, { quantity: '12,5' }), row(3, { subscriptionId: SUB2, quantity: '1,234' })]);
    expect(records).toEqual([{ subscriptionId: SUB, isAddon: false, quantity: 12.5 }]);
    expect(problems).toEqual([{ row: 3, field: 'quantity', message: expect.stringContaining('write 1234 for a whole number, or 1.234') }]);
  });

  it('refuses an empty batch', () => {
    expect(validateRows([]).problems).toHaveLength(1);
  });

  it('hashes the same records the same way whatever the case of their ids', () => {
    const a = validateRows([row(2, {})]).records;
    const b = validateRows([row(7, { subscriptionId: SUB.toUpperCase() })]).records;
    expect(canonicalRecords(a)).toBe(canonicalRecords(b));
  });
});

describe('joinFailures', () => {
  const { records, recordRows } = validateRows([
    row(2, { quantity: '1' }),
    row(3, { subscriptionId: SUB2, quantity: '5' }),
    row(4, { isAddon: 'yes', addonId: ADDON, quantity: '2' }),
    row(5, { subscriptionId: SUB2, isAddon: 'yes', addonId: ADDON, quantity: '5' }),
  ]);

  it('puts each failure on the row it came from, by ids and quantity', () => {
    const joined = joinFailures(records, recordRows, [
      { errorMessage: 'no such add-on', consumptionId: null, subscriptionId: SUB.toUpperCase(), isAddon: true, addonId: ADDON, quantity: 2 },
      { errorMessage: 'unknown subscription', consumptionId: null, subscriptionId: SUB2, isAddon: false, addonId: null, quantity: 5 },
    ]);
    expect(joined.map((f) => [f.row, f.errorMessage])).toEqual([
      [4, 'no such add-on'],
      [3, 'unknown subscription'],
    ]);
  });

  it('lists a failure that matches no row apart (row null)', () => {
    const joined = joinFailures(records, recordRows, [
      { errorMessage: 'who?', consumptionId: null, subscriptionId: '99999999-9999-4999-8999-999999999999', isAddon: false, addonId: null, quantity: 1 },
    ]);
    expect(joined).toEqual([{ row: null, errorMessage: 'who?', subscriptionId: '99999999-9999-4999-8999-999999999999', addonId: null, quantity: 1 }]);
  });
});

describe("a service's failure beside its row", () => {
  const row = { ...emptyRow(3), subscriptionId: ' 6F1C9A3E-0000-4000-8000-000000000001 ', isAddon: 'no', quantity: '3,5' };
  const failure = { subscriptionId: '6f1c9a3e-0000-4000-8000-000000000001', addonId: null, quantity: 3.5 };

  it('stays while the row holds what failed (in any case and spacing, the quantity as typed)', () => {
    expect(failureStillApplies(failure, row)).toBe(true);
  });

  it('goes once the row is edited: another subscription, quantity or add-on', () => {
    expect(failureStillApplies(failure, { ...row, subscriptionId: '6f1c9a3e-0000-4000-8000-000000000002' })).toBe(false);
    expect(failureStillApplies(failure, { ...row, quantity: '4' })).toBe(false);
    expect(failureStillApplies(failure, { ...row, isAddon: 'yes', addonId: '6f1c9a3e-0000-4000-8000-00000000000a' })).toBe(false);
  });
});
