import { foldForSearch } from '@shared/search-fold';
import type { BillingException, ReviewState, Severity } from '@shared/schemas/month-close';
import { isOpenReview, type ShownReviewState, shownReviewState } from '@shared/model/review-state';
import { userLocale } from '@renderer/components/format-time';
import { unitPriceText } from '@renderer/components/format-number';
import { currenciesOf } from '@shared/model/currency-pair';

/** Which exceptions the list shows by their review: the open ones (the default), one review state, or all. */
export type ReviewFilter = ReviewState | 'all';

export interface ExceptionFilter {
  review: ReviewFilter;
  severity?: Severity | undefined;
  rule?: string | undefined;
  /** Organization, customer number, service, subscription, product or message (any case). */
  text?: string | undefined;
}

export const SEVERITIES: readonly Severity[] = ['high', 'medium', 'low'];
export const SEVERITY_LABELS: Record<Severity, string> = { high: 'High', medium: 'Medium', low: 'Low' };
export const REVIEW_LABELS: Record<ReviewFilter, string> = { open: 'Open', accepted: 'Accepted', resolved: 'Resolved', all: 'All' };

/** An exception with no review is open; one whose figures changed since its review is suspended (and counts as open). */
export function reviewStateOf(exception: BillingException): ShownReviewState {
  return shownReviewState(exception.review);
}

/** The list's review filter an exception falls under: a suspended one is among the open ones. */
const filterStateOf = (exception: BillingException): ReviewState => (isOpenReview(exception.review) ? 'open' : (exception.review?.state ?? 'open'));

/** How many exceptions are in each review state (and in all); suspended ones count as open. */
export function reviewCounts(exceptions: readonly BillingException[]): Record<ReviewFilter, number> {
  const counts: Record<ReviewFilter, number> = { open: 0, accepted: 0, resolved: 0, all: exceptions.length };
  for (const exception of exceptions) counts[filterStateOf(exception)] += 1;
  return counts;
}

function searchable(exception: BillingException): string {
  return foldForSearch(
    [exception.organization, exception.customerNumber, exception.service, exception.subscription, exception.product, exception.message, exception.title]
      .filter(Boolean)
      .join('\n'),
  );
}

export function filterExceptions(exceptions: readonly BillingException[], filter: ExceptionFilter): BillingException[] {
  const text = foldForSearch(filter.text?.trim() ?? '');
  return exceptions.filter(
    (exception) =>
      (filter.review === 'all' || filterStateOf(exception) === filter.review) &&
      (!filter.severity || exception.severity === filter.severity) &&
      (!filter.rule || exception.rule === filter.rule) &&
      (!text || searchable(exception).includes(text)),
  );
}

/** One rule's exceptions: the list's groups, most severe first. */
export interface RuleGroup {
  rule: string;
  severity: Severity;
  title: string;
  explanation: string;
  exceptions: BillingException[];
}

const collator = new Intl.Collator(userLocale, { numeric: true, sensitivity: 'base' });

/**
 * The exceptions grouped by rule, the groups by severity (high first) and then title, the exceptions in each in the
 * order the checks list them: by organization in the month's name order (its profile's), as every other list of
 * the month, so the same month always reads in the same order.
 */
export function groupByRule(exceptions: readonly BillingException[]): RuleGroup[] {
  const groups = new Map<string, RuleGroup>();
  for (const exception of exceptions) {
    let group = groups.get(exception.rule);
    if (!group) {
      group = { rule: exception.rule, severity: exception.severity, title: exception.title, explanation: exception.explanation, exceptions: [] };
      groups.set(exception.rule, group);
    }
    group.exceptions.push(exception);
  }
  const rank = (severity: Severity) => SEVERITIES.indexOf(severity);
  return [...groups.values()].sort((a, b) => rank(a.severity) - rank(b.severity) || collator.compare(a.title, b.title));
}

/** The rules present (for the rule filter), in the order of the groups. */
export function rulesOf(exceptions: readonly BillingException[]): { rule: string; title: string }[] {
  return groupByRule(exceptions).map((group) => ({ rule: group.rule, title: group.title }));
}

/** Where in the report an exception is, in words: service › subscription › product (whichever it names). */
export function placeOf(exception: Pick<BillingException, 'service' | 'subscription' | 'product'>): string {
  return [exception.service, exception.subscription, exception.product].filter(Boolean).join(' › ');
}

/**
 * An exception's words with its amounts in the user's locale, as every other number on screen: the checks write
 * exact decimals with a point ("1640.00 SEK"); a figure followed by one of the exception's own currency codes, and
 * the figure before an arrow to one ("495 → 0 SEK"), are written as the locale writes them ("1 640,00 SEK").
 * Other digits (a product named "Plan 2") stay as they are.
 */
export function messageText(exception: Pick<BillingException, 'message' | 'currencyKey'>, locale = userLocale): string {
  if (!exception.currencyKey) return exception.message;
  const codes = [...new Set(Object.values(currenciesOf(exception.currencyKey)))].join('|');
  const figure = (decimal: string, currency: string) => unitPriceText(decimal, currency, locale).text.replace(/\u00a0/g, ' ');
  return exception.message.replace(
    new RegExp(`(?<![\\w.])(-?\\d+(?:\\.\\d+)?)( → )?(-?\\d+(?:\\.\\d+)?)? (${codes})\\b`, 'g'),
    (whole, first: string, arrow: string | undefined, second: string | undefined, code: string) =>
      arrow && second ? `${figure(first, code)} → ${figure(second, code)} ${code}` : second === undefined ? `${figure(first, code)} ${code}` : whole,
  );
}

/** An exception's words after its rule's title (shown before them): a message that opens with the title does not say it twice. */
export function afterTitle(exception: Pick<BillingException, 'message' | 'currencyKey' | 'title'>, locale = userLocale): string {
  const text = messageText(exception, locale);
  return text.startsWith(`${exception.title}: `) ? text.slice(exception.title.length + 2) : text;
}
