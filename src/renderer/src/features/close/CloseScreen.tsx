import { openTotal } from '@shared/model/review-state';
import { useEffect, useId, useRef, useState } from 'react';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { formatCount } from '@renderer/components/format-number';
import { useFocusAfterStep } from '@renderer/hooks/keyboard-focus';
import { ChecklistPanel } from './ChecklistPanel';
import { InvoicesPanel } from './InvoicesPanel';
import { CloseHeader } from './CloseHeader';
import { ComparePanel } from './ComparePanel';
import { useEarlierMonthSaved } from './FetchMonthBefore';
import { type ExceptionShown, ExceptionsPanel } from './ExceptionsPanel';
import type { ExceptionGrouping } from '@shared/contract';
import { useUiSettings } from '../reports/use-report-data';
import { RatesPanel } from './RatesPanel';
import type { ShowInReport } from './ExceptionRow';
import { RestatementPanel } from './RestatementPanel';
import { SignOffBox, SignOffPending } from './SignOffBox';
import { ThresholdsForm } from './ThresholdsForm';
import { TrendsPanel } from './TrendsPanel';
import { useMonthClose } from './use-month-close';
import './close.css';

type Tab = 'exceptions' | 'compare' | 'checklist' | 'invoices' | 'trends' | 'rates' | 'thresholds';

/**
 * Closing the open report's month, the way month end is worked through: what is open first (exceptions by
 * severity, each accepted with a note or resolved), the comparison with last month, then the four-eyes sign-off. A month
 * the service changed after its sign-off says so above everything else.
 */
export function CloseScreen({
  meta,
  onShowInReport,
  exceptionShown = null,
}: {
  meta: ReportMeta;
  onShowInReport: ShowInReport;
  /** An exception to open on (from the Invoicing view); a new `n` opens it again. */
  exceptionShown?: ExceptionShown | null;
}): React.JSX.Element {
  const close = useMonthClose(meta.id);
  // A month before this one saved meanwhile: the checks now stand on it.
  useEarlierMonthSaved(meta, () => void close.reload());
  const [tab, setTab] = useState<Tab>('exceptions');
  // By finding or by rule: remembered between sessions, with the report's columns.
  const groupBy = useUiSettings((state) => state.settings.exceptionGrouping);
  const saveSettings = useUiSettings((state) => state.save);
  const loadSettings = useUiSettings((state) => state.load);
  useEffect(() => void loadSettings(), [loadSettings]);
  const setGroupBy = (exceptionGrouping: ExceptionGrouping) => saveSettings({ exceptionGrouping });
  useEffect(() => {
    if (exceptionShown) setTab('exceptions');
  }, [exceptionShown]);
  const ids = useId();
  const { view } = close;
  // Each step of the sign-off is a fresh box; the button pressed goes with it, so the keyboard lands on the new one.
  const signOffStep = view ? `${view.state}|${view.signOff?.preparedAt ?? ''}` : null;
  const signOffRegion = useRef<HTMLDivElement>(null);
  const thenFocusSignOff = useFocusAfterStep(signOffRegion, signOffStep);
  const openCount = view ? openTotal(view.open) : 0;
  const tabs: { id: Tab; label: string; count?: string }[] = [
    { id: 'exceptions', label: 'Exceptions', count: `(${view ? formatCount(openCount) : '…'} open)` },
    { id: 'compare', label: 'Compare with last month' },
    { id: 'checklist', label: 'Checklist' },
    { id: 'invoices', label: 'Invoices' },
    { id: 'trends', label: 'Trends' },
    { id: 'rates', label: 'Reference currency' },
    { id: 'thresholds', label: 'Thresholds' },
  ];

  return (
    <section className="close" aria-label="Close the month">
      <CloseHeader meta={meta} view={view}>
        {view ? (
          <SignOffBox
            key={signOffStep}
            region={signOffRegion}
            view={view}
            openCount={openCount}
            onPrepare={thenFocusSignOff(close.prepare)}
            onApprove={thenFocusSignOff(close.approve)}
            onReopen={thenFocusSignOff(close.reopen)}
          />
        ) : (
          <SignOffPending />
        )}
      </CloseHeader>
      {close.loadError ? (
        <div className="error-note" role="alert">
          The month's checks could not be read: {close.loadError}{' '}
          <button type="button" className="link" onClick={() => void close.reload()}>
            Try again
          </button>
        </div>
      ) : null}
      {view ? <RestatementPanel meta={meta} view={view} /> : null}
      <div className="close__tabs" role="tablist" aria-label="Close the month">
        {tabs.map((entry) => (
          <button
            key={entry.id}
            type="button"
            role="tab"
            id={`${ids}-${entry.id}`}
            aria-selected={tab === entry.id}
            aria-controls={`${ids}-panel`}
            onClick={() => setTab(entry.id)}
          >
            {entry.label}
            {/* Its own width, whatever the count: the tabs beside it do not move when the checks come. */}
            {entry.count ? (
              <>
                {' '}
                <span className="close__tab-count">{entry.count}</span>
              </>
            ) : null}
          </button>
        ))}
      </div>
      <div className="close__body" role="tabpanel" id={`${ids}-panel`} aria-labelledby={`${ids}-${tab}`}>
        {!view && !close.loadError && tab !== 'trends' && tab !== 'rates' && tab !== 'invoices' ? <p className="empty">Running the billing checks…</p> : null}
        {view && tab === 'exceptions' ? (
          <ExceptionsPanel view={view} meta={meta} close={close} onShow={onShowInReport} shown={exceptionShown} groupBy={groupBy} onGroupBy={setGroupBy} />
        ) : null}
        {view && tab === 'compare' ? <ComparePanel meta={meta} previousReportId={view.previousReportId} /> : null}
        {view && tab === 'checklist' ? <ChecklistPanel reportId={meta.id} view={view} /> : null}
        {tab === 'invoices' ? <InvoicesPanel reportId={meta.id} /> : null}
        {tab === 'trends' ? <TrendsPanel reportId={meta.id} /> : null}
        {tab === 'rates' ? <RatesPanel reportId={meta.id} /> : null}
        {view && tab === 'thresholds' ? (
          <ThresholdsForm
            profileId={meta.profileId}
            profileName={meta.profileName}
            thresholds={view.thresholds}
            team={view.teamLedger}
            onSaved={close.reload}
          />
        ) : null}
      </div>
    </section>
  );
}
