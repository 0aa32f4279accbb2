import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { RatesView } from '@shared/schemas/month-close';
import { call, RequestError } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, countOf, formatCount, percentText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { convertedLabel, draftOf, MAX_RATES_FILE_BYTES, rateCurrencies, type RatesDraft, ratesToSave } from './rates-form';
import './rates-panel.css';

/** The native totals per currency pair and, beside them, what the user's rates convert them to. */
function ConvertedTable({ view }: { view: RatesView }): React.JSX.Element {
  const reference = view.referenceCurrency;
  return (
    <table className="grid rates__table" aria-label="Totals per currency, native and converted">
      <thead>
        <tr>
          <th>Currency</th>
          <th className="num">Lines</th>
          <th className="num">Cost</th>
          <th className="num">Sales</th>
          {reference ? (
            <>
              <th className="num rates__converted">Cost in {reference}</th>
              <th className="num rates__converted">Sales in {reference}</th>
            </>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {view.pairs.map((pair) => {
          const { cost, sales } = currenciesOf(pair.currencyKey);
          return (
            <tr key={pair.currencyKey} data-testid="rates-pair">
              <td>{pair.currencyKey}</td>
              <td className="num">{formatCount(pair.lines)}</td>
              <td className="num">
                <NumberValue value={amountText(pair.cost, cost)} /> <span className="ccy">{cost}</span>
              </td>
              <td className="num">
                <NumberValue value={amountText(pair.sales, sales)} /> <span className="ccy">{sales}</span>
              </td>
              {reference ? (
                pair.convertedCost !== null && pair.convertedSales !== null ? (
                  <>
                    <td className="num rates__converted">
                      <NumberValue value={amountText(pair.convertedCost, reference)} />
                    </td>
                    <td className="num rates__converted">
                      <NumberValue value={amountText(pair.convertedSales, reference)} />
                    </td>
                  </>
                ) : (
                  <td colSpan={2} className="rates__converted warn-text">
                    no rate for {pair.missing.join(' and ')}: left out
                  </td>
                )
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The converted total, labelled as the user's own conversion, and what it leaves out. */
function ConvertedTotal({ view }: { view: RatesView }): React.JSX.Element | null {
  const reference = view.referenceCurrency;
  const total = view.converted;
  if (!reference || !total) return null;
  return (
    <div className="rates__total" role="group" aria-labelledby="rates-total-title" data-testid="converted-total">
      <h4 id="rates-total-title">{convertedLabel(reference)}</h4>
      <dl>
        {[
          { label: 'Cost', value: total.cost, percent: null },
          { label: 'Sales', value: total.sales, percent: null },
          { label: 'Margin', value: total.margin, percent: total.marginPercent },
        ].map(({ label, value, percent }) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>
              <NumberValue value={amountText(value, reference)} /> {reference}
              {percent !== null ? <span className="muted"> ({percentText(percent).text})</span> : null}
            </dd>
          </div>
        ))}
      </dl>
      {view.missing.length ? (
        <p className="warn-text" data-testid="rates-missing">
          Not in this total: {formatCount(total.pairsLeftOut)} of {formatCount(total.pairsIncluded + total.pairsLeftOut)} currency groups, because{' '}
          {view.missing.join(', ')} {view.missing.length === 1 ? 'has' : 'have'} no rate.
        </p>
      ) : (
        <p className="muted">Every currency of the month has a rate. The amounts billed are the native ones above.</p>
      )}
    </div>
  );
}

/**
 * A month's optional reference currency: the user's own rates (entered or imported from a CSV) give a clearly
 * labelled converted total beside the native amounts — never in their place. The rates are kept with the month.
 */
export function RatesPanel({ reportId }: { reportId: string }): React.JSX.Element {
  const [view, setView] = useState<RatesView | null>(null);
  const [draft, setDraft] = useState<RatesDraft | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction({ onError: (error) => setFields(error instanceof RequestError ? error.fields : {}) });
  const { run } = action;
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useId();

  const show = useCallback((next: RatesView, message: string | null) => {
    setView(next);
    setDraft(draftOf(next));
    setFields({});
    setNotice(message);
  }, []);

  useEffect(() => {
    let live = true;
    setView(null);
    setNotice(null);
    void run(async () => {
      const answer = await call('close:rates', { reportId });
      if (live) show(answer, null);
    }, 'load');
    return () => {
      live = false;
    };
  }, [reportId, run, show]);

  if (!view || !draft) {
    return (
      <section className="rates" aria-label="Reference currency">
        <h3>Reference currency</h3>
        <ErrorNote message={action.error} />
        {action.error ? null : <p className="muted">Loading…</p>}
      </section>
    );
  }

  const locked = view.signedOff;
  const reference = draft.referenceCurrency.trim().toUpperCase();
  const save = () =>
    run(async () => {
      setNotice(null);
      show(await call('close:set-rates', { reportId, referenceCurrency: reference || null, rates: ratesToSave(draft) }), 'Rates saved with this month.');
    }, 'save');
  const remove = () =>
    run(async () => {
      show(await call('close:set-rates', { reportId, referenceCurrency: null, rates: [] }), 'Rates removed: this month shows native amounts only.');
    }, 'remove');
  const importFile = (file: File | undefined) => {
    if (!file) return;
    void run(async () => {
      setNotice(null);
      if (!reference) throw new Error('Choose the reference currency before importing rates.');
      if (file.size > MAX_RATES_FILE_BYTES)
        throw new Error(`${file.name} is ${formatCount(file.size)} bytes; a rates file is at most ${formatCount(MAX_RATES_FILE_BYTES)}.`);
      const answer = await call('close:import-rates', { reportId, referenceCurrency: reference, csv: await file.text() });
      show(answer, `Imported ${countOf(answer.rates.length, 'rate')} from ${file.name}.`);
    }, 'import');
  };
  const setRate = (currency: string, rate: string) => setDraft({ ...draft, rates: { ...draft.rates, [currency]: rate } });

  return (
    <section className="rates" aria-label="Reference currency">
      <h3>Reference currency</h3>
      <p className="muted">
        Optional: with your own exchange rates this month's totals are also shown converted to one currency, for an overview. The amounts billed stay in their
        own currencies.
      </p>
      {locked ? <p className="warn-text">The month is signed off, so its rates are locked. Reopen it to change them.</p> : null}
      <form
        className="rates__form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <div className={`field rates__reference${fields.referenceCurrency ? ' field--invalid' : ''}`}>
          <label htmlFor={`${id}-reference`}>Reference currency</label>
          <input
            id={`${id}-reference`}
            value={draft.referenceCurrency}
            maxLength={3}
            size={5}
            disabled={locked}
            autoComplete="off"
            aria-invalid={Boolean(fields.referenceCurrency)}
            onChange={(event) => setDraft({ ...draft, referenceCurrency: event.target.value.toUpperCase() })}
          />
          {fields.referenceCurrency ? <span className="field__error">{fields.referenceCurrency}</span> : null}
        </div>
        <table className="grid rates__inputs" aria-label="Exchange rates">
          <thead>
            <tr>
              <th>Currency</th>
              <th>Rate: 1 unit is worth, in {reference || '…'}</th>
            </tr>
          </thead>
          <tbody>
            {rateCurrencies(draft).map((currency) => {
              const error = fields[`rates.${currency}`];
              return (
                <tr key={currency} className={error ? 'field--invalid' : undefined}>
                  <td>
                    <label htmlFor={`${id}-${currency}`}>1 {currency} =</label>
                  </td>
                  <td>
                    <input
                      id={`${id}-${currency}`}
                      inputMode="decimal"
                      placeholder="no rate"
                      value={draft.rates[currency] ?? ''}
                      disabled={locked}
                      aria-invalid={Boolean(error)}
                      onChange={(event) => setRate(currency, event.target.value)}
                    />{' '}
                    {reference}
                    {error ? <span className="field__error"> {error}</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <div className="form__actions">
          <button type="submit" disabled={locked || action.busy}>
            Save rates
          </button>
          <button
            type="button"
            disabled={locked || action.busy}
            onClick={() => fileInput.current?.click()}
            title="A CSV with currency,rate per line (header optional; comma or semicolon; a decimal comma in a semicolon file). It replaces this month's rates."
          >
            Import CSV…
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".csv,text/csv,text/plain"
            hidden
            data-testid="rates-file"
            onChange={(event) => {
              importFile(event.target.files?.[0]);
              event.target.value = '';
            }}
          />
          <span className="hint">
            CSV: currency,rate per line (header optional, comma or semicolon; a rate may have a decimal comma, 10,92); importing replaces the month's rates.
          </span>
          {view.referenceCurrency ? (
            <button type="button" className="link" disabled={locked || action.busy} onClick={() => void remove()}>
              Remove rates
            </button>
          ) : null}
        </div>
      </form>
      <ErrorNote message={action.error} />
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ConvertedTable view={view} />
      <ConvertedTotal view={view} />
    </section>
  );
}
