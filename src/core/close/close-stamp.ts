import { counted } from '@shared/counted';
import { localTime } from '../xlsx';
import { openSinceSignOff, openTotal } from '@shared/model/review-state';
import type { MonthCloseSheetsState } from './checks-sheet';

/** What every file of a month says of its close, in words: DRAFT, PREPARED or APPROVED, with who and when. */
export interface CloseStamp {
  word: 'DRAFT' | 'PREPARED' | 'APPROVED' | 'CHANGED AFTER SIGN-OFF';
  /** The stamp in one line: the word, who and when, and what it means for invoicing. */
  line: string;
  /** Whether the month's invoices may be made from this fetch now (the month close's readyToInvoice). */
  ready: boolean;
  /** Exceptions open although the month is signed (each came after its sign-off): reopen and review them. */
  openSinceSignOff: number;
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
  const ready = state.readyToInvoice;
  if (signOff && (integrity.contentChanged || !integrity.logIntact)) {
    const what = integrity.contentChanged ? 'the signed lines no longer match their content hash' : 'entries of the close log were removed or changed';
    return { word: 'CHANGED AFTER SIGN-OFF', line: `CHANGED AFTER SIGN-OFF — ${what}: not a basis for invoicing.`, ready, openSinceSignOff: 0 };
  }
  const open = openTotal(state.open);
  if (state.state === 'draft' || !signOff) {
    const elsewhere = signOff
      ? state.restatement?.hashChanged
        ? ` This fetch is a restatement: the month is ${signOff.state} on another fetch, whose lines the service has changed since.`
        : ` The month is ${signOff.state} on another fetch with the same lines.`
      : '';
    return {
      word: 'DRAFT',
      line: `DRAFT — not prepared (${counted(open, 'exception')} open).${elsewhere}`,
      ready,
      openSinceSignOff: 0,
    };
  }
  const prepared = `prepared by ${signOff.preparedBy} at ${localDateTime(signOff.preparedAt, timeZone)}`;
  const since = open ? ` ${openSinceSignOff(open)}: reopen it and review them; not ready to invoice until then.` : '';
  if (state.state === 'approved' && signOff.approvedBy && signOff.approvedAt)
    return {
      word: 'APPROVED',
      line: `APPROVED by ${signOff.approvedBy} at ${localDateTime(signOff.approvedAt, timeZone)}; ${prepared}.${since}`,
      ready,
      openSinceSignOff: open,
    };
  return {
    word: 'PREPARED',
    line: state.teamLedger
      ? `PREPARED — ${prepared}; awaiting approval by a second person: not ready to invoice.${since}`
      : `PREPARED — ${prepared}; not approved by a second person (a workstation without a team ledger).${since}`,
    ready,
    openSinceSignOff: open,
  };
}
