import type { TopMover, Trends } from '@shared/schemas/month-close';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, type NumberText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { monthLabel } from './month-label';
import { periodLabel } from './trends-chart';

const LEVELS = [
  { level: 'organization', title: 'Customers', name: 'Customer' },
  { level: 'service', title: 'Services', name: 'Service' },
] as const;

/** A change with its sign either way: "+7.00", "−19.75". */
function signedAmountText(change: string, currency: string): NumberText {
  const value = amountText(change, currency);
  return change.startsWith('-') ? value : { ...value, text: `+${value.text}` };
}

/** The largest rises and falls in sales of one level (customers or services), per currency pair. */
function MoversTable({
  rows,
  title,
  name,
  before,
  after,
}: {
  rows: TopMover[];
  title: string;
  name: string;
  before: string;
  after: string;
}): React.JSX.Element {
  return (
    <table className="grid movers__table" aria-label={`${title} with the largest change in sales`}>
      <thead>
        <tr>
          <th>Currency</th>
          <th>{name}</th>
          <th className="num">Sales {before}</th>
          <th className="num">Sales {after}</th>
          <th className="num">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={5} className="muted">
              No change in sales.
            </td>
          </tr>
        ) : (
          rows.map((mover) => {
            const currency = currenciesOf(mover.currencyKey).sales;
            return (
              <tr key={`${mover.currencyKey}|${mover.key}`} data-testid="mover" className={mover.change.startsWith('-') ? 'movers__down' : 'movers__up'}>
                <td>{mover.currencyKey}</td>
                <td>
                  {mover.name}
                  {mover.detail ? <span className="muted"> {mover.detail}</span> : null}
                  {mover.status !== 'changed' ? <span className="tag">{mover.status}</span> : null}
                </td>
                <td className="num">
                  <NumberValue value={amountText(mover.salesBefore, currency)} />
                </td>
                <td className="num">
                  <NumberValue value={amountText(mover.salesAfter, currency)} />
                </td>
                <td className="num">
                  <NumberValue value={signedAmountText(mover.change, currency)} />
                </td>
              </tr>
            );
          })
        )}
      </tbody>
    </table>
  );
}

/** The month's top movers against the month before: customers and services, each currency pair on its own. */
export function TopMovers({ movers }: { movers: Trends['movers'] }): React.JSX.Element {
  if (!movers) {
    return (
      <section className="movers" aria-label="Top movers">
        <h4>Top movers</h4>
        <p className="muted">There is no earlier month of this service in the ledger: top movers compare a month with the one before it.</p>
      </section>
    );
  }
  const before = periodLabel(movers.before.period);
  const after = periodLabel(movers.after.period);
  return (
    <section className="movers" aria-label="Top movers">
      <h4>
        Top movers: {monthLabel(movers.after.period)} against {monthLabel(movers.before.period)}
      </h4>
      <p className="muted">The largest rises and falls in sales, per currency (never added across currencies).</p>
      <div className="movers__tables">
        {LEVELS.map(({ level, title, name }) => (
          <div key={level}>
            <h5>{title}</h5>
            <MoversTable rows={movers.rows.filter((mover) => mover.level === level)} title={title} name={name} before={before} after={after} />
          </div>
        ))}
      </div>
    </section>
  );
}
