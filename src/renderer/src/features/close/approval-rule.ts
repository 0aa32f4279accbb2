import type { MonthCloseView, Review, Severity } from '@shared/schemas/month-close';
import { openSinceSignOff, openTotal } from '@shared/model/review-state';
import { formatCount } from '@renderer/components/format-number';

/** What a signed month with exceptions open since its sign-off needs, said on the sign-off whether Prepared or Approved. */
export const openSinceSignOffAdvice = (open: number) =>
  `${openSinceSignOff(open)}. Reopen the month (with a reason) to review them; until then it is not ready to invoice.`;

/**
 * Why you may not approve this Prepared month, said before the click (the core refuses it in its transaction, and the
 * team ledger in the database, whatever the screen shows); null when nothing the screen knows stands in the way.
 */
export function approvalRefusal(
  view: Pick<MonthCloseView, 'signOff' | 'you' | 'teamLedger' | 'open'> & {
    exceptions: readonly { severity: Severity; review: Pick<Review, 'state' | 'reviewedBy'> | null }[];
  },
): string | null {
  const { signOff, you, teamLedger } = view;
  // Open exceptions stand in everyone's way, the preparer's too: the month goes back to Draft to review them.
  const open = openTotal(view.open);
  if (open) return openSinceSignOffAdvice(open);
  if (signOff?.preparedBy === you)
    return teamLedger
      ? `You (${you}) prepared this month, so you cannot approve it: a second person must.`
      : `You (${you}) prepared this month, so you cannot approve it: approval needs a second person, who signs in through the team ledger. On this workstation the close ends at Prepared — ready to invoice, and every file says "not approved by a second person".`;
  const ownHigh = view.exceptions.filter(
    (exception) => exception.severity === 'high' && exception.review?.state === 'accepted' && exception.review.reviewedBy === you,
  ).length;
  if (ownHigh)
    return `You (${you}) accepted ${ownHigh === 1 ? 'a high exception' : `${formatCount(ownHigh)} high exceptions`} of this month, so you cannot also approve it: a second person must.`;
  return null;
}
