import { createHash } from 'node:crypto';
import type { CloseLogEntry } from '@shared/schemas/month-close';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import { CLOSE_LOG_FIELDS } from '../ledger/migrations/005-four-eyes';
import type { MonthRef } from './months';
import { insertLogEntry, lastLogEntry, logEntryRows, type LogEntryRow } from './queries/close-log';

/** What a step of the close appends to the month's log (the month, its place in the chain and the hashes are added). */
export interface LogStep {
  reportId: string;
  action: 'accepted' | 'resolved' | 'open' | 'prepared' | 'approved' | 'reopened' | 'deleted' | 'exported' | 'adjusted' | 'adjustments-approved';
  exceptionId?: string;
  note?: string;
  actor: string;
  at: string;
  /** The figures or state the step was taken on, as JSON text ('' when none). */
  evidence?: string;
}

function hashOf(previousHash: string, row: Omit<LogEntryRow, 'previous_hash' | 'hash'>): string {
  // Each field as its UTF-8 byte length, a colon and its text: the migration's SQL (closeLogPayloadSql) does the same.
  const payload = CLOSE_LOG_FIELDS.map((field) => {
    const text = String(row[field]);
    return `${Buffer.byteLength(text, 'utf8')}:${text}`;
  }).join('');
  return createHash('sha256')
    .update(previousHash + payload)
    .digest('hex');
}

/**
 * Appends steps to a month's log inside the caller's transaction, each chained to the entry before it. The log is
 * only ever appended to: nothing in Closebook updates or deletes an entry, and one that is (by hand, or another
 * program) breaks the chain from there on. Returns the last entry (what a sign-off keeps, so a cut end is found).
 */
export async function appendLog(transaction: LedgerTransaction, month: MonthRef, steps: readonly LogStep[]): Promise<{ seq: number; hash: string }> {
  const last = await lastLogEntry(transaction, month);
  let seq = last?.seq ?? 0;
  let previousHash = last?.hash ?? '';
  for (const step of steps) {
    seq += 1;
    const row = {
      host: month.host,
      reseller_id: month.resellerId,
      period_start: month.startDate,
      period_end: month.endDate,
      seq,
      report_id: step.reportId,
      action: step.action,
      exception_id: step.exceptionId ?? '',
      note: step.note ?? '',
      actor: step.actor,
      logged_at: step.at,
      evidence: step.evidence ?? '',
    };
    const hash = hashOf(previousHash, row);
    await insertLogEntry(transaction, { ...row, previous_hash: previousHash, hash });
    previousHash = hash;
  }
  return { seq, hash: previousHash };
}

export interface MonthLog {
  entries: CloseLogEntry[];
  /** True when every entry follows the one before it (1, 2, 3 …) and its hash is what its fields and that one give. */
  intact: boolean;
  /** The first entry (its place, from 1) where the chain breaks: a missing, changed or inserted entry. */
  brokenAt: number | null;
}

/** A month's log, oldest first, with the chain checked from the first entry to the last. */
export async function monthLog(ledger: Ledger | LedgerTransaction, month: MonthRef): Promise<MonthLog> {
  const rows = await logEntryRows(ledger, month);
  let previousHash = '';
  let brokenAt: number | null = null;
  rows.forEach((row, index) => {
    if (brokenAt !== null) return;
    if (row.seq !== index + 1 || row.previous_hash !== previousHash || hashOf(previousHash, row) !== row.hash) brokenAt = index + 1;
    previousHash = row.hash;
  });
  return {
    entries: rows.map((row) => ({
      seq: row.seq,
      reportId: row.report_id,
      action: row.action,
      exceptionId: row.exception_id,
      note: row.note,
      actor: row.actor,
      at: row.logged_at,
      evidence: row.evidence,
      hash: row.hash,
    })),
    intact: brokenAt === null,
    brokenAt,
  };
}
