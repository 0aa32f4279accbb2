import { localTime } from '../xlsx';
import type { MonthCloseSheetsState } from './checks-sheet';

/** What every file of a month says of its close, in words: DRAFT, PREPARED or APPROVED, with who and when. */
export interface CloseStamp {
  word: 'DRAFT' | 'PREPARED' | 'APPROVED' | 'CHANGED AFTER SIGN-OFF';
  /** The stamp in one line: the word, who and when, and what it means for invoicing. */
  line: string;
  /** Prepared on a workstation without a team ledger: ready to invoice, but not approved by a second person. */
  preparedAlone: boolean;
}

/** A recorded instant as a wall-clock time in `timeZone`, named ("2026-12-08 12:15 (Europe/Stockholm, UTC+01:00)"). */
export function localDateTime(at: string, timeZone: string | undefined, withSeconds = false): string {
  const local = localTime(new Date(at), timeZone);
  return local
    ? `${local.value
        .toISOString()
        .slice(0, withSeconds ? 19 : 16)
        .replace('T', ' ')} (${local.zone})`
    : at;
}

/**
 * The close state of the fetch a file was made from. A sign-off whose lines or log no longer check out reads
 * "changed after sign-off", never signed; a Prepared month without a team ledger says it was not approved by a
 * second person.
 */
export function closeStamp(state: MonthCloseSheetsState, reportId: string, timeZone: string | undefined): CloseStamp {
  const { signOff, integrity } = state;
  if (signOff && (integrity.contentChanged || !integrity.logIntact)) {
    const what = integrity.contentChanged ? 'the signed lines no longer match their content hash' : 'entries of the close log were removed or changed';
    return { word: 'CHANGED AFTER SIGN-OFF', line: `CHANGED AFTER SIGN-OFF — ${what}: not a basis for invoicing.`, preparedAlone: false };
  }
  if (state.state === 'draft' || !signOff) {
    const open = state.open.high + state.open.medium + state.open.low;
    const elsewhere = signOff
      ? state.restatement?.hashChanged
        ? ` This fetch is a restatement: the month is ${signOff.state} on another fetch, whose lines the service has changed since.`
        : ` The month is ${signOff.state} on another fetch with the same lines.`
      : '';
    return {
      word: 'DRAFT',
      line: `DRAFT — not prepared (${open.toLocaleString('en')} ${open === 1 ? 'exception' : 'exceptions'} open).${elsewhere}`,
      preparedAlone: false,
    };
  }
  const prepared = `prepared by ${signOff.preparedBy} at ${localDateTime(signOff.preparedAt, timeZone)}`;
  if (state.state === 'approved' && signOff.approvedBy && signOff.approvedAt)
    return {
      word: 'APPROVED',
      line: `APPROVED by ${signOff.approvedBy} at ${localDateTime(signOff.approvedAt, timeZone)}; ${prepared}.`,
      preparedAlone: false,
    };
  return {
    word: 'PREPARED',
    preparedAlone: !state.teamLedger,
    line: state.teamLedger
      ? `PREPARED — ${prepared}; awaiting approval by a second person: not ready to invoice.`
      : `PREPARED — ${prepared}; not approved by a second person (a workstation without a team ledger).`,
  };
}
