import { quoted, readTypedDecimal } from './typed-number';
import { isGuid } from './schemas/common';
import {
  CONSUMPTION_FIELDS,
  PLAIN_HEADERS,
  type ConsumptionField,
  type ConsumptionRecord,
  type FailedRecord,
  type InputRow,
  type RowFailure,
  type RowProblem,
} from './schemas/consumption';

export { PLAIN_HEADERS };

const headerKey = (header: string) => header.toLowerCase().replace(/[^a-z]/g, '');

/** Header text → field: the spec's names, their plain headers and a few short forms, matched without case, spaces or punctuation. */
const HEADER_ALIASES = new Map<string, ConsumptionField>([
  ...CONSUMPTION_FIELDS.flatMap((field): [string, ConsumptionField][] => [
    [headerKey(field), field],
    [headerKey(PLAIN_HEADERS[field]), field],
  ]),
  ['subscription', 'subscriptionId'],
  ['addon', 'isAddon'],
  ['qty', 'quantity'],
]);

export function fieldForHeader(header: string): ConsumptionField | undefined {
  return HEADER_ALIASES.get(headerKey(header));
}

/** A row with every field empty: a new row of the grid, or a file row before its cells are read. */
export function emptyRow(row: number): InputRow {
  return { row, subscriptionId: '', isAddon: '', addonId: '', quantity: '', consumptionId: '' };
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

export function parseYesNo(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (word === '') return false; // an empty "Is add-on" reads as a plain subscription record
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** What a quantity cell reads as: a number, or why it is not one. */
export type QuantityReading = { quantity: number } | { problem: string };

/** A quantity as people type or paste it, by the one rule of typed numbers (readTypedDecimal). */
export function readQuantity(value: string, decimalComma = false): QuantityReading {
  // A workbook's cell in a date style is read as the date it shows (Excel may have made a typed "1.5" into 1 May).
  if (/^\d{4}-\d\d-\d\d( \d\d:\d\d:\d\d)?$/.test(value.trim()))
    return { problem: `${quoted(value.trim())} is a date, not a quantity: format the column as Number and type the quantity again.` };
  const reading = readTypedDecimal(value, decimalComma);
  if ('problem' in reading) return reading;
  const quantity = Number(reading.decimal);
  return Number.isFinite(quantity) ? { quantity } : { problem: `${quoted(value.trim())} is not a number.` };
}

export interface ValidatedRows {
  records: ConsumptionRecord[];
  /** Row number of each record, in the same order. */
  recordRows: number[];
  problems: RowProblem[];
}

/**
 * Checks every row per spec §2.4 and names each problem's row and field. Rows are all-or-nothing like the service:
 * callers submit only when `problems` is empty.
 */
export function validateRows(rows: InputRow[]): ValidatedRows {
  const problems: RowProblem[] = [];
  const records: ConsumptionRecord[] = [];
  const recordRows: number[] = [];
  const seen = new Map<string, number>();
  if (rows.length === 0) problems.push({ row: 0, field: 'file', message: 'There are no consumption rows to submit.' });
  for (const input of rows) {
    const problem = (field: ConsumptionField, message: string) => problems.push({ row: input.row, field, message });
    const before = problems.length;
    const subscriptionId = input.subscriptionId.trim();
    if (!subscriptionId) problem('subscriptionId', 'Subscription ID is required.');
    else if (!isGuid(subscriptionId)) problem('subscriptionId', `${quoted(subscriptionId)} is not a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301).`);
    const isAddon = parseYesNo(input.isAddon);
    if (isAddon === undefined) problem('isAddon', `${quoted(input.isAddon.trim())} is not yes/no: use true/false, yes/no or 1/0.`);
    const addonId = input.addonId.trim();
    if (addonId && !isGuid(addonId)) problem('addonId', `${quoted(addonId)} is not a GUID.`);
    if (isAddon === true && !addonId) problem('addonId', 'Add-on ID is required when Is add-on is yes.');
    if (isAddon === false && addonId) problem('addonId', 'Add-on ID is given but Is add-on is no: set Is add-on to yes, or clear the add-on ID.');
    // A ';'-separated file's decimal commas were rewritten as points as it was read; any other cell reads by the rule.
    const reading = input.quantity.trim() === '' ? null : readQuantity(input.quantity);
    const quantity = reading && 'quantity' in reading ? reading.quantity : undefined;
    if (!reading) problem('quantity', 'Quantity is required.');
    else if ('problem' in reading) problem('quantity', reading.problem);
    else if (reading.quantity < 0) problem('quantity', 'Quantity must be zero or more.');
    const consumptionId = input.consumptionId.trim();
    if (consumptionId && !isGuid(consumptionId)) problem('consumptionId', `${quoted(consumptionId)} is not a GUID (leave it empty for new consumption).`);
    // Only otherwise-valid rows are compared, so one mistake does not echo as "duplicate" on later rows.
    if (problems.length === before) {
      const key = `${subscriptionId.toLowerCase()}|${isAddon ? addonId.toLowerCase() : ''}`;
      const first = seen.get(key);
      if (first !== undefined)
        problem(
          isAddon ? 'addonId' : 'subscriptionId',
          `The same ${isAddon ? 'add-on' : 'subscription'} is already on row ${first}; one record each per batch.`,
        );
      else seen.set(key, input.row);
    }
    if (problems.length === before && isAddon !== undefined && quantity !== undefined) {
      records.push({
        subscriptionId,
        isAddon,
        quantity,
        ...(addonId ? { addonId } : {}),
        ...(consumptionId ? { consumptionId } : {}),
      });
      recordRows.push(input.row);
    }
  }
  return { records, recordRows, problems };
}

/** The records as the service receives them, in a stable form for hashing. */
export function canonicalRecords(records: ConsumptionRecord[]): string {
  return JSON.stringify(
    records.map((record) => [
      record.subscriptionId.toLowerCase(),
      record.isAddon,
      record.addonId?.toLowerCase() ?? '',
      record.quantity,
      record.consumptionId?.toLowerCase() ?? '',
    ]),
  );
}

/**
 * Joins each failed record back to the row it came from: by subscription, add-on and consumption id, then quantity
 * to tell duplicates apart. A failure that matches no row is returned with `row: null`, to be listed apart.
 */
export function joinFailures(records: ConsumptionRecord[], recordRows: number[], failed: FailedRecord[]): RowFailure[] {
  const used = new Set<number>();
  const norm = (value: string | null | undefined) => (value ?? '').trim().toLowerCase();
  // Records indexed by subscription and add-on once, so a batch that fails whole is joined in linear time.
  const bySubscription = new Map<string, number[]>();
  records.forEach((record, index) => {
    const key = `${norm(record.subscriptionId)}|${norm(record.addonId)}`;
    bySubscription.set(key, [...(bySubscription.get(key) ?? []), index]);
  });
  return failed.map((failure) => {
    const candidates = (bySubscription.get(`${norm(failure.subscriptionId)}|${norm(failure.addonId)}`) ?? [])
      .map((index) => ({ record: records[index] as ConsumptionRecord, index }))
      .filter(({ record, index }) => !used.has(index) && (failure.consumptionId === null || norm(record.consumptionId) === norm(failure.consumptionId)));
    const match = candidates.find(({ record }) => failure.quantity === null || record.quantity === failure.quantity) ?? candidates[0];
    if (match) used.add(match.index);
    return {
      row: match ? (recordRows[match.index] as number) : null,
      errorMessage: failure.errorMessage,
      subscriptionId: failure.subscriptionId,
      addonId: failure.addonId,
      quantity: failure.quantity,
    };
  });
}

/**
 * Whether a failure the service gave for a row still speaks of it: the row holds the subscription, add-on and
 * quantity that failed. Once the row is edited, the old error (naming the old id) is no longer its own.
 */
export function failureStillApplies(failure: Pick<RowFailure, 'subscriptionId' | 'addonId' | 'quantity'>, row: InputRow): boolean {
  const same = (a: string | null, b: string) => (a ?? '').trim().toLowerCase() === b.trim().toLowerCase();
  const reading = row.quantity.trim() === '' ? null : readQuantity(row.quantity);
  const quantity = reading && 'quantity' in reading ? reading.quantity : null;
  return same(failure.subscriptionId, row.subscriptionId) && same(failure.addonId, row.addonId) && (failure.quantity === null || failure.quantity === quantity);
}
