import { periodInWords } from '@shared/consumption-batch';
import { parseYesNo } from '@shared/consumption-rows';
import { isGuid } from '@shared/schemas/common';
import type { InputRow, SubscriptionName } from '@shared/schemas/consumption';

/** Where the names come from, said when an id is not there. */
export const NOT_IN_REPORTS = 'not in the saved reports of this profile';

/**
 * What a row's ids stand for: the customer and the subscription (and its products) as the newest saved report of
 * the profile names them. `name` is undefined while it is being looked up, null when no saved report has the id.
 * Add-ons are not in billing reports: their id is shown as it is.
 */
export function RowNames({ row, name }: { row: InputRow; name: SubscriptionName | null | undefined }): React.JSX.Element | null {
  const addon = parseYesNo(row.isAddon) === true && row.addonId.trim() ? <div className="names__addon">add-on {row.addonId.trim()}</div> : null;
  if (!isGuid(row.subscriptionId.trim())) return addon;
  if (name === undefined) {
    return (
      <>
        <span className="muted">…</span>
        {addon}
      </>
    );
  }
  if (name === null) {
    return (
      <>
        <span className="names__unknown">{NOT_IN_REPORTS}</span>
        {addon}
      </>
    );
  }
  const products = name.products.length ? ` · ${name.products.join(', ')}` : '';
  const title = `${name.organization}${name.customerNumber ? ` (customer number ${name.customerNumber})` : ''}\n${name.service}: ${name.subscription}${products}\nFrom the saved report of ${periodInWords(name.period)}`;
  return (
    <div title={title}>
      <div className="names__organization">{name.organization}</div>
      <div className="names__subscription">
        {name.subscription}
        {products ? <span className="muted">{products}</span> : null}
      </div>
      {addon}
    </div>
  );
}
