import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';

/*
 * A month's exceptions as its checks found them, kept under a key of everything the checks read (month-close.ts).
 */

const KEPT = rowShape({ exceptions: 'text' });

/** The exceptions kept under `key` (JSON), or undefined. */
export async function keptExceptionsRow(ledger: Ledger, key: string): Promise<string | undefined> {
  return KEPT.all(await ledger.all('SELECT exceptions FROM kept_checks WHERE check_key = $1', [key]))[0]?.exceptions;
}

/** Keeps `exceptions` (JSON) under `key`, replacing what was there, and forgets all but the `keep` most recent. */
export async function keepExceptions(transaction: LedgerTransaction, key: string, exceptions: string, madeAt: string, keep: number): Promise<void> {
  await transaction.run('DELETE FROM kept_checks WHERE check_key = $1', [key]);
  await transaction.run('INSERT INTO kept_checks VALUES ($1, $2, $3)', [key, madeAt, exceptions]);
  await transaction.run('DELETE FROM kept_checks WHERE check_key IN (SELECT check_key FROM kept_checks ORDER BY made_at DESC OFFSET $1)', [keep]);
}
