import { useMemo, useState } from 'react';
import type { InvoiceRow, InvoiceTotal } from '@shared/contract';
import type { ReportFilter } from '@shared/report-filter';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { amountText, countOf, formatCount } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { INVOICE_FLAGS } from '@shared/model/invoice-flags';
import { anomaliesByInvoiceRow, anomalyKey, type InvoiceAnomaly } from '@shared/model/invoice-anomalies';
import { useChannelAnswer } from '@renderer/hooks/use-latest-answer';
import { messageText } from '../close/exception-list';
import { INVOICING_HEADERS, INVOICING_SCREEN_ORDER, NUMERIC_INVOICING_COLUMNS } from '@shared/model/invoicing-columns';
import { exactAmountText, invoiceTable, sortInvoiceRows } from './invoicing-table';
import { useInvoiceSort, useInvoicing } from './use-invoicing';
import { copyTable } from './use-report-data';
import { GridRow, HeaderCell, TWO_LINE_ROWS, useVirtualRows, VirtualGrid } from '@renderer/components/VirtualGrid';
import './invoicing.css';

/** What `clipboard:copy-table` takes in one go (header row included). */
const MAX_COPY_ROWS = 49_999;

const COLUMNS = INVOICING_SCREEN_ORDER.map((key) => ({ key, label: INVOICING_HEADERS[key], numeric: NUMERIC_INVOICING_COLUMNS.has(key) }));

/** Amounts to invoice per currency: what the invoices of each currency add up to (never across currencies). */
export function InvoiceTotalsTable({ totals }: { totals: InvoiceTotal[] | null }): React.JSX.Element {
  return (
    <div className="inv-totals">
      <table className="grid inv-totals__table" aria-label="Amounts to invoice per currency" aria-busy={totals === null}>
        <thead>
          <tr>
            <th>{INVOICING_HEADERS.currency}</th>
            <th className="num">{INVOICING_HEADERS.amount}</th>
            <th className="num">Customers</th>
            <th className="num">{INVOICING_HEADERS.lines}</th>
          </tr>
        </thead>
        <tbody>
          {(totals ?? []).map((total) => (
            <tr key={total.currency} data-testid="invoice-total">
              <td>{total.currency}</td>
              <td className="num">
                <NumberValue value={amountText(total.amountToInvoice, total.currency)} />
              </td>
              <td className="num">{formatCount(total.customers)}</td>
              <td className="num">{formatCount(total.lines)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The costs of a row, one line per purchase currency, amounts aligned on the right. */
function CostLines({ row }: { row: InvoiceRow }): React.JSX.Element {
  return (
    <span className="inv__lines" title={row.costs.map((cost) => exactAmountText(cost.amount, cost.currency)).join(' · ')}>
      {row.costs.map((cost) => (
        <span key={cost.currency}>
          <NumberValue value={amountText(cost.amount, cost.currency)} /> <span className="ccy">{cost.currency}</span>
        </span>
      ))}
    </span>
  );
}

/** Why a margin is missing or covers only part of the row: the cost bought in another currency has none in one currency. */
function marginNote(row: InvoiceRow): string {
  const others = row.costs.map((cost) => cost.currency).filter((currency) => currency !== row.currency);
  const elsewhere = others.join(', ') || 'another currency';
  return row.margin === null
    ? `The cost is in ${elsewhere}, the sales in ${row.currency}: no margin across currencies.`
    : `Margin of the part bought in ${row.currency}; the part bought in ${elsewhere} is left out (no margin across currencies).`;
}

/** Opens an exception of the month in Close the month (the viewer decides how). */
export type ShowException = (exceptionId: string) => void;

const ANOMALY_STATES: Record<InvoiceAnomaly['state'], string> = {
  open: 'open',
  suspended: 'open again (figures changed)',
  accepted: 'accepted',
  resolved: 'resolved',
};

/** An anomaly in words, as a tooltip or a screen reader says it. */
const anomalyText = (anomaly: InvoiceAnomaly) => `${anomaly.title} (${ANOMALY_STATES[anomaly.state]}): ${messageText(anomaly)}`;

/** The month's exceptions questioning a row's invoice, beside its amount: one mark, which opens the first of them. */
function AnomalyMark({ anomalies, onShow }: { anomalies: InvoiceAnomaly[]; onShow: ShowException }): React.JSX.Element {
  const open = anomalies.some((anomaly) => anomaly.state !== 'accepted');
  const words = anomalies.map(anomalyText).join('\n');
  return (
    <button
      type="button"
      className={`inv__anomaly${open ? '' : ' inv__anomaly--accepted'}`}
      data-testid="invoice-anomaly"
      title={`${words}\nOpen in Close the month`}
      aria-label={`${anomalies.length === 1 ? 'An exception questions' : `${anomalies.length} exceptions question`} this invoice: ${words}. Open in Close the month`}
      onClick={() => onShow(anomalies[0]!.exceptionId)}
    >
      !
    </button>
  );
}

interface RowProps {
  row: InvoiceRow;
  /** The month's exceptions that question this invoice (open or accepted). */
  anomalies: InvoiceAnomaly[];
  index: number;
  top: number;
  selected: boolean;
  /** `range`: shift held, select from the last row clicked to this one. */
  onSelect: (index: number, row: InvoiceRow, range: boolean) => void;
  onShowException: ShowException;
}

const NO_ANOMALIES: InvoiceAnomaly[] = [];

function InvoiceRowView({ row, anomalies, index, top, selected, onSelect, onShowException }: RowProps): React.JSX.Element {
  const flagged = row.flags.length > 0 || anomalies.length > 0;
  const groups = row.groups.join(', ');
  return (
    <GridRow
      index={index}
      top={top}
      aria-selected={selected}
      data-testid="invoice-row"
      className={`inv__row${flagged ? ' inv__row--flagged' : ''}${selected ? ' inv__row--selected' : ''}`}
    >
      <div role="gridcell" className="inv__select">
        {/* A checkbox's change comes from a click (or Space): the click says whether shift was held. */}
        <input
          type="checkbox"
          checked={selected}
          onChange={(event) => onSelect(index, row, (event.nativeEvent as MouseEvent).shiftKey === true)}
          aria-label={`Select ${row.organization} ${row.currency}`}
        />
      </div>
      <div role="gridcell" title={row.customerNumber}>
        {row.customerNumber || <span className="muted">none</span>}
      </div>
      <div role="gridcell" className="inv__org" title={row.organization}>
        {row.organization}
      </div>
      <div role="gridcell" className="inv__lines" title={groups}>
        {row.groups.length ? row.groups.map((group) => <span key={group}>{group}</span>) : <span className="muted">no group</span>}
      </div>
      {/* The mark sits at the currency's right edge, beside the amount, so it never takes the amount's room. */}
      <div role="gridcell" className="inv__currency">
        {row.currency}
        {anomalies.length ? <AnomalyMark anomalies={anomalies} onShow={onShowException} /> : null}
      </div>
      <div
        role="gridcell"
        className={`num inv__amount${row.flags.includes('credit') ? ' inv__amount--credit' : ''}`}
        title={`Exact sum ${exactAmountText(row.exactAmount, row.currency)}, rounded once to the currency's minor unit`}
      >
        <NumberValue value={amountText(row.amountToInvoice, row.currency)} />
      </div>
      <div role="gridcell" className="num">
        {formatCount(row.lines)}
      </div>
      <div role="gridcell" className="num">
        <CostLines row={row} />
      </div>
      <div role="gridcell" className="num">
        {row.margin === null ? (
          <span className="muted" title={marginNote(row)}>
            n/a
          </span>
        ) : (
          <span
            className={row.marginPartial ? 'inv__margin--part' : undefined}
            data-testid={row.marginPartial ? 'margin-part' : undefined}
            title={row.marginPartial ? `${exactAmountText(row.margin, row.currency)}\n${marginNote(row)}` : exactAmountText(row.margin, row.currency)}
          >
            <NumberValue value={amountText(row.margin, row.currency)} />
            {row.marginPartial ? <span aria-label={`, of the part bought in ${row.currency}`}>*</span> : null}
          </span>
        )}
      </div>
      <div
        role="gridcell"
        className="inv__lines inv__flags"
        title={[...row.flags.map((flag) => `${INVOICE_FLAGS[flag].label}: ${INVOICE_FLAGS[flag].hint}`), ...anomalies.map(anomalyText)].join('\n')}
      >
        {row.flags.map((flag) => (
          <span key={flag} className={`inv__flag inv__flag--${flag}`}>
            {INVOICE_FLAGS[flag].label}
          </span>
        ))}
        {anomalies.map((anomaly) => (
          <button
            key={anomaly.exceptionId}
            type="button"
            className={`link inv__flag inv__flag--exception${anomaly.state === 'accepted' ? ' inv__flag--accepted' : ''}`}
            onClick={() => onShowException(anomaly.exceptionId)}
          >
            {anomaly.title}
            {anomaly.state === 'accepted' ? ' · accepted' : ''}
          </button>
        ))}
      </div>
    </GridRow>
  );
}

/**
 * The Invoicing view of a report: one row per organization per customer currency, with the amount to invoice (its
 * sales in that currency over every service, rounded once to the currency's minor unit). Totals per currency above;
 * columns sort (amounts within a currency); rows are drawn only where they are in view; rows copy as tab-separated
 * text that pastes into a spreadsheet as cells.
 */
export function InvoicingView({
  reportId,
  filter,
  onShowException,
}: {
  reportId: string;
  filter: ReportFilter;
  onShowException: ShowException;
}): React.JSX.Element {
  const invoicing = useInvoicing(reportId, filter);
  // The month's billing checks, as Close the month has them: the rows they question say so beside the amount.
  const close = useChannelAnswer('close:state', { reportId });
  const anomalies = useMemo(() => (close.data ? anomaliesByInvoiceRow(close.data.exceptions) : null), [close.data]);
  const { sort, sortBy } = useInvoiceSort();
  const rows = useMemo(() => (invoicing.data ? sortInvoiceRows(invoicing.data.rows, sort) : []), [invoicing.data, sort]);
  // A new order or a new answer (another filter) is a new list: start at its top.
  const virtualRows = useVirtualRows(rows.length, TWO_LINE_ROWS, rows);

  // Selection by key, so it survives a new sort; a new answer (another filter) starts empty.
  const [selection, setSelection] = useState<{ data: unknown; keys: Set<string>; anchor: string | null }>({ data: null, keys: new Set(), anchor: null });
  const selected = selection.data === invoicing.data ? selection.keys : new Set<string>();
  const onSelect = (index: number, row: InvoiceRow, range: boolean) => {
    const keys = new Set(selected);
    const anchor = range && selection.data === invoicing.data ? rows.findIndex((candidate) => candidate.key === selection.anchor) : -1;
    if (anchor >= 0) {
      for (let i = Math.min(anchor, index); i <= Math.max(anchor, index); i += 1) keys.add(rows[i]!.key);
    } else if (keys.has(row.key)) keys.delete(row.key);
    else keys.add(row.key);
    setSelection({ data: invoicing.data, keys, anchor: row.key });
  };
  const allSelected = rows.length > 0 && selected.size === rows.length;

  const copying = useAction();
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (which: 'selected' | 'all') => {
    setCopied(null);
    const chosen = which === 'all' ? rows : rows.filter((row) => selected.has(row.key));
    void copying.run(async () => {
      if (chosen.length > MAX_COPY_ROWS)
        throw new Error(
          `${formatCount(chosen.length)} rows are more than one copy takes (${formatCount(MAX_COPY_ROWS)}): filter the view, or export the workbook.`,
        );
      await copyTable(invoiceTable(chosen));
      setCopied(`${countOf(chosen.length, 'row')} copied as tab-separated text (pastes into a spreadsheet as cells).`);
    }, which);
  };

  return (
    <section className="invoicing" aria-label="Invoicing">
      <div className="invoicing__bar">
        <InvoiceTotalsTable totals={invoicing.data?.totals ?? null} />
        <div className="invoicing__copy">
          <div className="toolbar">
            <button type="button" onClick={() => copy('selected')} disabled={copying.busy || selected.size === 0}>
              {selected.size ? `Copy ${formatCount(selected.size)} selected` : 'Copy selected'}
            </button>
            <button type="button" onClick={() => copy('all')} disabled={copying.busy || rows.length === 0}>
              Copy all rows
            </button>
          </div>
          <p className="muted">
            Amounts to invoice are the exact sums of the sales in each currency, rounded once to its minor unit; the full sum is in the tooltip. A margin marked
            * is of the part bought in the invoice currency. A ! beside an amount is an exception of the month that questions the invoice.
          </p>
          {anomalies === null ? (
            close.error ? (
              <p className="error-note" role="alert">
                The month's exceptions could not be read, so the rows do not say which they question: {close.error}{' '}
                <button type="button" className="link" onClick={close.retry}>
                  Try again
                </button>
              </p>
            ) : (
              <p className="muted" role="status">
                Running the month's checks…
              </p>
            )
          ) : null}
          {copied ? (
            <p className="notice" role="status">
              {copied}
            </p>
          ) : null}
          <ErrorNote message={copying.error} />
        </div>
      </div>
      {invoicing.error ? (
        <div className="error-note" role="alert">
          The invoicing rows could not be read: {invoicing.error}{' '}
          <button type="button" className="link" onClick={invoicing.retry}>
            Try again
          </button>
        </div>
      ) : null}
      <VirtualGrid
        rows={virtualRows}
        block="inv"
        label="Amounts to invoice"
        aria-multiselectable="true"
        aria-busy={invoicing.data === null && !invoicing.error}
        header={
          <>
            <div role="columnheader" className="inv__select">
              <input
                type="checkbox"
                aria-label="Select all rows"
                checked={allSelected}
                disabled={rows.length === 0}
                onChange={() => setSelection({ data: invoicing.data, keys: allSelected ? new Set() : new Set(rows.map((row) => row.key)), anchor: null })}
              />
            </div>
            {COLUMNS.map((column) => (
              <HeaderCell
                key={column.key}
                label={column.label}
                numeric={column.numeric}
                direction={sort.key === column.key ? sort.direction : null}
                onSort={() => sortBy(column.key)}
                title={column.numeric ? `Sort by ${column.label} (within each currency; n/a last)` : `Sort by ${column.label}`}
                plainLabel
              />
            ))}
          </>
        }
        renderRow={(item, top) => {
          const row = rows[item.index]!;
          return (
            <InvoiceRowView
              key={row.key}
              row={row}
              anomalies={anomalies?.get(anomalyKey(row, row.currency)) ?? NO_ANOMALIES}
              index={item.index}
              top={top}
              selected={selected.has(row.key)}
              onSelect={onSelect}
              onShowException={onShowException}
            />
          );
        }}
        after={
          invoicing.data === null ? (
            invoicing.error ? null : (
              <p className="empty inv__empty">Loading the amounts to invoice…</p>
            )
          ) : rows.length === 0 ? (
            <p className="empty inv__empty">No organizations match these filters.</p>
          ) : null
        }
      />
    </section>
  );
}
