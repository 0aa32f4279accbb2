import { counted } from '../counted';
import type { Evidence, Review } from '../schemas/month-close';

/** How an exception's review reads: open (none, or undone), accepted, resolved — or suspended, since its figures changed. */
export type ShownReviewState = 'open' | 'accepted' | 'resolved' | 'suspended';

export function shownReviewState(review: Review | null): ShownReviewState {
  if (!review) return 'open';
  return review.suspended ? 'suspended' : review.state;
}

/** Does the exception still need a review? A suspended review no longer counts. */
export const isOpenReview = (review: Review | null) => {
  const state = shownReviewState(review);
  return state === 'open' || state === 'suspended';
};

/** How many exceptions are open, of every severity. */
export const openTotal = (open: Record<string, number>) => Object.values(open).reduce((sum, count) => sum + count, 0);

/**
 * Why a signed month has exceptions open: each was reviewed when it was prepared, so these came after — a review
 * suspended (its figures changed), or checks that now have more to go on (the month before fetched, or fetched anew).
 */
export const openSinceSignOff = (open: number) =>
  `${counted(open, 'exception is', 'exceptions are')} open since the month was prepared (a review suspended, or found by checks against a month before fetched since)`;

/** An exception's figures in words, as every screen and file names them: "cost 864.06, sales 0" ('' when none). */
export function describeFigures(evidence: Evidence): string {
  return Object.entries(evidence)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}
