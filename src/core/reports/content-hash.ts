import { createHash } from 'node:crypto';
import { AppError } from '@shared/errors';
import type { Ledger } from '../ledger/ledger';
import { canonicalLines, keepHash, keptHashRow } from './queries/content-hash';

/**
 * SHA-256 over a canonical form of a report's lines: each line's identity and values as text, in the compare key's
 * order — the same lines give the same hash whatever order the service sent them in or how the file was saved.
 * Taken from the lines each time: what a sign-off records and checks.
 */
export async function contentHashOf(ledger: Ledger, reportId: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const lines of canonicalLines(ledger, reportId)) {
    for (const line of lines) hash.update(`${line}\n`);
  }
  return hash.digest('hex');
}

/**
 * The content hash kept beside the report, taken once (a saved report's lines never change; a refetch is another
 * report): what the month close keys what it keeps by. Taken and kept on first use when the report has none yet
 * (saved by an earlier Closebook, or the app stopped between saving and hashing); a read-only ledger keeps none.
 */
export async function keptContentHash(ledger: Ledger, reportId: string): Promise<string> {
  const kept = await keptHashRow(ledger, reportId);
  if (kept === undefined) throw new AppError('not-found', 'That saved report no longer exists. Choose another month.');
  if (kept) return kept;
  const hash = await contentHashOf(ledger, reportId);
  if (!ledger.readOnly) await keepHash(ledger, reportId, hash);
  return hash;
}
