import { periodInWords } from '@shared/consumption-batch';
import { parseYesNo } from '@shared/consumption-rows';
import { isGuid } from '@shared/schemas/common';
import type { InputRow, SubscriptionName } from '@shared/schemas/consumption';

/** Where the names come from, said when an id is not there. */
export const NOT_IN_REPORTS = 'not in the saved reports of this profile';

/**
 * How Closebook has seen a subscription billed: metered (its quantity differs between months), the same quantity in
 * every month so far (a licence, likely not consumption), or one month only (too soon to tell).
 */
export function billingInWords(name: Pick<SubscriptionName, 'months' | 'metered'>): { kind: 'metered' | 'fixed' | 'once'; label: string; hint: string } {
  if (name.metered) return { kind: 'metered', label: 'metered', hint: `Billed as metered: its quantity differs between the ${name.months} months saved.` };
  if (name.months > 1)
    return {
      kind: 'fixed',
      label: 'fixed qty',
      hint: `Billed for the same quantity in each of the ${name.months} months saved: a licence, perhaps, rather than consumption.`,
    };
  return { kind: 'once', label: '1 month', hint: 'Billed in one saved month only: too soon to tell whether it is metered.' };
}

/**
 * What a row's ids stand for: the customer and the subscription (and its products) as the newest saved report of
 * the profile names them. `name` is undefined while it is being looked up, null when no saved report has the id.
 * Add-ons are not in billing reports: their id is shown as it is.
 */
export function RowNames({ row, name }: { row: InputRow; name: SubscriptionName | null | undefined }): React.JSX.Element | null {
  const addon = parseYesNo(row.isAddon) === true && row.addonId.trim() ? <div className="names__addon">add-on {row.addonId.trim()}</div> : null;
  if (!isGuid(row.subscriptionId.trim())) return addon;
  // Waiting, not found or found, the names take the same lines, so nothing below them moves when they arrive.
  if (name === undefined) {
    return (
      <>
        <div className="names__lines muted">…</div>
        {addon}
      </>
    );
  }
  if (name === null) {
    return (
      <>
        <div className="names__lines names__unknown">{NOT_IN_REPORTS}</div>
        {addon}
      </>
    );
  }
  const products = name.products.length ? ` · ${name.products.join(', ')}` : '';
  const billing = billingInWords(name);
  const title = `${name.organization}${name.customerNumber ? ` (customer number ${name.customerNumber})` : ''}\n${name.service}: ${name.subscription}${products}\nFrom the saved report of ${periodInWords(name.period)}\n${billing.hint}`;
  return (
    <>
      <div className="names__lines" title={title}>
        <div className="names__organization">
          {name.organization}{' '}
          <span className={`names__billing names__billing--${billing.kind}`} data-testid="billing-kind">
            {billing.label}
          </span>
        </div>
        <div className="names__subscription">
          {name.subscription}
          {products ? <span className="muted">{products}</span> : null}
        </div>
      </div>
      {addon}
    </>
  );
}
