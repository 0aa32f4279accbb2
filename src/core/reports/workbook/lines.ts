import type { LedgerValue } from '@core/ledger/ledger';

/** The lines a workbook covers: the filter's condition on `billing_lines l` and its bound parameters ($1 the report). */
export type Lines = { where: string; params: LedgerValue[] };
