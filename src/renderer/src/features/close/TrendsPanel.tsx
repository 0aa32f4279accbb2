import { lazy, Suspense, useState } from 'react';
import type { TrendScope } from '@shared/schemas/month-close';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useChannelAnswer } from '@renderer/hooks/use-latest-answer';
import { countOf } from '@renderer/components/format-number';
import { scopeLabel } from './trends-chart';
import { TopMovers } from './trends-movers';
import { TrendScopePicker } from './trends-scope';
import './trends-panel.css';

// The charting library is loaded when trends are first shown, not with the app.
const TrendFigure = lazy(async () => ({ default: (await import('./trends-figure')).TrendFigure }));

const ALL: TrendScope = { kind: 'all' };

/**
 * Trends of the report's service and reseller: sales, cost and margin of everything, one customer, one service or
 * one group over every month in the ledger — a chart and a table per currency pair — and the month's top movers.
 */
export function TrendsPanel({ reportId }: { reportId: string }): React.JSX.Element {
  // The scope chosen belongs to its report: another report starts from everything.
  const [chosen, setChosen] = useState<{ reportId: string; scope: TrendScope }>({ reportId, scope: ALL });
  const scope = chosen.reportId === reportId ? chosen.scope : ALL;
  const setScope = (next: TrendScope) => setChosen({ reportId, scope: next });
  const scopes = useChannelAnswer('close:trend-scopes', { reportId });
  // The last trends stay on screen while the next scope's are asked; a slow answer for an earlier scope never overwrites them.
  const trends = useChannelAnswer('close:trends', { reportId, scope }, { keepPrevious: true });
  const shown = trends.data;

  return (
    <section className="trends" aria-labelledby="trends-title" aria-busy={trends.loading}>
      <header className="trends__header">
        <h3 id="trends-title">Trends</h3>
        <TrendScopePicker scopes={scopes.data} scope={scope} onChange={setScope} />
      </header>
      <p className="trends__scope" data-testid="trend-scope">
        <strong>{scopeLabel(shown?.scope ?? scope, scopes.data)}</strong>
        {shown ? (
          <span className="muted"> · {countOf(shown.months.length, 'month')} in the ledger (the newest fetch of each) · every currency on its own</span>
        ) : null}
      </p>
      <ErrorNote message={trends.error ?? scopes.error} />
      {shown && shown.series.length === 0 ? <p className="empty">Nothing billed in any month for this choice.</p> : null}
      <Suspense fallback={<p className="muted">Loading the charts…</p>}>
        {shown?.series.map((series) => (
          <TrendFigure key={series.currencyKey} months={shown.months} series={series} currentIndex={shown.currentIndex} />
        ))}
      </Suspense>
      {shown ? <TopMovers movers={shown.movers} /> : trends.loading ? <p className="muted">Loading trends…</p> : null}
    </section>
  );
}
