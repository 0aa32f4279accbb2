import type { InvoiceMapping, InvoiceSettings, LoggedAdjustment } from '@shared/schemas/invoices';
import { sha256 } from './invoice-record';

/**
 * How invoices are made from what they are made from: change it with any change to that (the rounding, a line's
 * text, what a line sums), so that every month's invoices are made again rather than taken from a run kept before.
 */
export const INVOICE_RULES_VERSION = 1;

/** Everything a month's invoices are made from, read when they are (handlers' draftInputs). */
export interface RunMadeFrom {
  /**
   * The fetch whose lines they are made from: a saved fetch never changes. Its content hash alone would not do: it
   * leaves out the PO numbers, names and descriptions a fetch made again can change, which invoices carry.
   */
  reportId: string;
  /** The content hash of the fetch's lines. */
  contentHash: string;
  periodStart: string;
  mapping: InvoiceMapping;
  settings: InvoiceSettings;
  logged: readonly LoggedAdjustment[];
}

/**
 * One hash of everything a month's invoices are made from: its fetch's lines and period, the Broker's mapping, the
 * workstation's invoice settings, the month's adjustments, and how invoices are made. A run is kept with it: made
 * from the same again, the month's invoices are that run's, without being made to compare (at a million lines,
 * 30 s and a gigabyte).
 */
export function runInputs(made: RunMadeFrom): string {
  return sha256(JSON.stringify([INVOICE_RULES_VERSION, made.reportId, made.contentHash, made.periodStart, made.mapping, made.settings, made.logged]));
}
