import { useState } from 'react';
import { ReportPeriod } from '@shared/schemas/billing-report';
import { fieldErrorsFromZod } from '@shared/errors';
import { endedBefore, periodNotOverText } from '@shared/model/period-end';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { useActiveProfile } from '@renderer/stores/app-store';
import { lastMonth, monthPeriod } from './format';
import { useReportJobs } from './report-jobs-store';

/** Requests the monthly billing report for a period (last month by default). */
export function RequestForm(): React.JSX.Element {
  const profile = useActiveProfile();
  const request = useReportJobs((state) => state.request);
  const [period, setPeriod] = useState(lastMonth);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { run, busy, error, clearError } = useAction();

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    clearError();
    const parsed = ReportPeriod.safeParse(period);
    setErrors(parsed.success ? {} : fieldErrorsFromZod(parsed.error));
    if (!parsed.success || !profile) return;
    await run(() => request(profile.id, parsed.data));
  };

  return (
    <form className="panel form request-form" onSubmit={(event) => void submit(event)} aria-label="Request billing report" noValidate>
      <h2>Request a billing report</h2>
      <div className="request-form__row">
        <label className="field">
          <span>Month</span>
          <input
            type="month"
            aria-label="Month"
            value={period.startDate.slice(0, 7)}
            onChange={(event) => {
              const [year, month] = event.target.value.split('-').map(Number) as [number, number];
              if (!year || !month) return;
              setPeriod(monthPeriod(year, month));
            }}
          />
        </label>
        <label className="field">
          <span>From</span>
          <input
            type="date"
            aria-label="From"
            value={period.startDate}
            onChange={(event) => setPeriod((current) => ({ ...current, startDate: event.target.value }))}
          />
        </label>
        <label className="field">
          <span>To</span>
          <input
            type="date"
            aria-label="To"
            value={period.endDate}
            onChange={(event) => setPeriod((current) => ({ ...current, endDate: event.target.value }))}
          />
          {errors.endDate ? <span className="field__error">{errors.endDate}</span> : null}
        </label>
        <button type="submit" className="primary" disabled={busy || !profile} data-control="request-report">
          {busy ? 'Requesting…' : 'Request report'}
        </button>
      </div>
      <p className="hint">
        Billing data lands on days 6–8 of each month. Generation takes minutes; you can close Closebook meanwhile — the request carries on when you reopen it.
      </p>
      {endedBefore(period.endDate, new Date()) ? null : (
        <p className="hint request-form__early" role="note" data-testid="period-not-over">
          {periodNotOverText(period.endDate)}
        </p>
      )}
      <ErrorNote message={error} />
    </form>
  );
}
