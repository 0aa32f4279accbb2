import type { TeamMoveIn } from '@shared/schemas/team-ledger';
import { everyFetch, type MonthRef, reviewRows, RULES, signOffRow } from '../close';
import type { Ledger } from '../ledger/ledger';
import type { TeamConnection } from './team-connection';
import type { TeamMonths } from './team-months';

/** A high exception, by its rule (an exception's id begins with its rule). */
const isHigh = (exceptionId: string) => RULES[exceptionId.split('|')[0] as keyof typeof RULES]?.severity === 'high';

const monthKey = (month: MonthRef) => [month.host, month.resellerId, month.startDate, month.endDate];
const monthName = (month: MonthRef) => `${month.startDate}…${month.endDate}`;

/**
 * Moves a workstation's months into the team ledger, once it is connected: every fetch the team ledger lacks (by
 * content hash), and the reviews of each month that is a Draft there, for exceptions nobody reviewed there yet. Each
 * review is made again as the signed-in role — the server's log names who moved it — with the original reviewer and
 * time in its note; except an acceptance of a high exception, which whoever accepted it makes again there (the
 * database then refuses them the approval). Nothing is prepared or approved by the move: a month signed off here is
 * reported, to be prepared again on the team ledger. Says what moved, what was there already and what was left, and why.
 */
export async function moveIn(ledger: Ledger, connection: TeamConnection, months: TeamMonths, workstation: string): Promise<TeamMoveIn> {
  const report: TeamMoveIn = { fetchesMoved: 0, fetchesThere: 0, reviewsMoved: 0, reviewsThere: 0, left: [] };
  const fetches = await everyFetch(ledger);
  const seen = new Set<string>();
  for (const fetch of fetches) {
    if (!fetch.resellerId) {
      report.left.push(`${monthName(fetch)} (${fetch.reportId}): imported from a file that names no reseller, so the team ledger cannot place it.`);
      continue;
    }
    const shared = await months.share(fetch.reportId);
    if (shared.shared) report.fetchesMoved++;
    else report.fetchesThere++;
    const key = monthKey(fetch).join('|');
    if (seen.has(key)) continue;
    seen.add(key);
    await moveReviews(ledger, connection, fetch, workstation, report);
    const signed = await signOffRow(ledger, fetch);
    if (signed)
      report.left.push(
        `${monthName(fetch)}: ${signed.state === 'approved' ? 'Approved' : 'Prepared'} here by ${signed.approved_by ?? signed.prepared_by}; nothing is signed by the move — prepare it again on the team ledger.`,
      );
  }
  return report;
}

async function moveReviews(ledger: Ledger, connection: TeamConnection, month: MonthRef, workstation: string, report: TeamMoveIn): Promise<void> {
  const rows = await reviewRows(ledger, month);
  if (!rows.length) return;
  const there = new Set(
    (
      await connection.query<{ exception_id: string }>(
        `SELECT r.exception_id FROM closebook.reviews r JOIN closebook.months m USING (month_id)
         WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date`,
        monthKey(month),
      )
    ).map((row) => row.exception_id),
  );
  const [signed] = await connection.query<{ state: string }>(
    `SELECT s.state FROM closebook.sign_offs s JOIN closebook.months m USING (month_id)
     WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date`,
    monthKey(month),
  );
  const waiting = rows.filter((row) => !there.has(row.exception_id));
  report.reviewsThere += rows.length - waiting.length;
  if (!waiting.length) return;
  if (signed) {
    report.left.push(
      `${monthName(month)}: ${waiting.length} reviews not moved — the month is ${signed.state} on the team ledger, so its reviews are locked there.`,
    );
    return;
  }
  const unmovable = waiting.filter((row) => row.evidence === null);
  if (unmovable.length)
    report.left.push(
      `${monthName(month)}: ${unmovable.length} reviews from before four eyes, not yet bound to figures — open the month here once, then move in again.`,
    );
  // An acceptance of a high exception is not moved: made again as the person moving in, it would no longer keep
  // the one who accepted it from approving the month. Whoever accepted it accepts it again on the team ledger.
  const high = waiting.filter((row) => row.evidence !== null && row.state === 'accepted' && isHigh(row.exception_id));
  if (high.length)
    report.left.push(
      `${monthName(month)}: ${high.length} ${high.length === 1 ? 'acceptance' : 'acceptances'} of high exceptions not moved — whoever accepted ${high.length === 1 ? 'it' : 'them'} accepts again on the team ledger, so the database knows who may not approve.`,
    );
  for (const row of waiting.filter((candidate) => candidate.evidence !== null && !high.includes(candidate))) {
    const note = `${row.note ? `${row.note} ` : ''}(reviewed by ${row.reviewed_by} at ${row.reviewed_at} on a workstation; moved in)`;
    await connection.query('SELECT closebook.review($1, $2, $3::date, $4::date, $5::text[], $6::text[], $7, $8, $9)', [
      ...monthKey(month),
      [row.exception_id],
      [row.evidence],
      row.state,
      note,
      workstation,
    ]);
    report.reviewsMoved++;
  }
}
