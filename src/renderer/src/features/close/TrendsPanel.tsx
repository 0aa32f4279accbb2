import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { Trends, TrendScope, TrendScopes } from '@shared/schemas/month-close';
import { call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/components/use-action';
import { formatCount } from '@renderer/components/format-number';
import { scopeLabel } from './trends-chart';
import { TopMovers } from './trends-movers';
import { TrendScopePicker } from './trends-scope';
import './trends-panel.css';

// The charting library is loaded when trends are first shown, not with the app.
const TrendFigure = lazy(async () => ({ default: (await import('./trends-figure')).TrendFigure }));

/**
 * Trends of the report's service and reseller: sales, cost and margin of everything, one customer, one service or
 * one group over every month in the ledger — a chart and a table per currency pair — and the month's top movers.
 */
export function TrendsPanel({ reportId }: { reportId: string }): React.JSX.Element {
  const [scopes, setScopes] = useState<TrendScopes | null>(null);
  const [scope, setScope] = useState<TrendScope>({ kind: 'all' });
  const [trends, setTrends] = useState<Trends | null>(null);
  const { run, error, running } = useAction();
  // Only the latest request's answer is shown: a slow one for an earlier scope never overwrites it.
  const latest = useRef(0);

  useEffect(() => {
    setScope({ kind: 'all' });
    setScopes(null);
    let live = true;
    void run(async () => {
      const answer = await call('close:trend-scopes', { reportId });
      if (live) setScopes(answer);
    }, 'scopes');
    return () => {
      live = false;
    };
  }, [reportId, run]);

  useEffect(() => {
    const request = ++latest.current;
    void run(async () => {
      const answer = await call('close:trends', { reportId, scope });
      if (latest.current === request) setTrends(answer);
    }, 'trends');
  }, [reportId, scope, run]);

  const shown = trends;
  return (
    <section className="trends" aria-labelledby="trends-title" aria-busy={running === 'trends'}>
      <header className="trends__header">
        <h3 id="trends-title">Trends</h3>
        <TrendScopePicker scopes={scopes} scope={scope} onChange={setScope} />
      </header>
      <p className="trends__scope" data-testid="trend-scope">
        <strong>{scopeLabel(trends?.scope ?? scope, scopes)}</strong>
        {shown ? <span className="muted"> · {formatCount(shown.months.length)} months in the ledger (the newest fetch of each) · every currency on its own</span> : null}
      </p>
      <ErrorNote message={error} />
      {shown && shown.series.length === 0 ? <p className="empty">Nothing billed in any month for this choice.</p> : null}
      <Suspense fallback={<p className="muted">Loading the charts…</p>}>
        {shown?.series.map((series) => <TrendFigure key={series.currencyKey} months={shown.months} series={series} currentIndex={shown.currentIndex} />)}
      </Suspense>
      {shown ? <TopMovers movers={shown.movers} /> : running ? <p className="muted">Loading trends…</p> : null}
    </section>
  );
}
