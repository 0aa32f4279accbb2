import { useEffect, useRef } from 'react';
import type { InvoiceRow, InvoiceTotal, TreeRow } from '@shared/contract';
import type { ReportFilter } from '@shared/report-filter';
import { call } from '@renderer/bridge';
import { useLatestAnswer } from '@renderer/hooks/use-latest-answer';
import { AmountHeaderCells } from '@renderer/components/AmountHeaderCells';
import { currenciesOf } from '@shared/model/currency-pair';
import { INVOICING_HEADERS, INVOICING_SCREEN_ORDER, NUMERIC_INVOICING_COLUMNS } from '@shared/model/invoicing-columns';
import { amountText, countOf, formatCount, percentText } from '@renderer/components/format-number';
import { InvoiceTotalsTable } from './InvoicingView';
import { NumberValue } from '@renderer/components/NumberValue';
import { flagWords, sortInvoiceRows } from './invoicing-table';
import { loadInvoicing, useInvoiceSort } from './use-invoicing';

/** The most rows `reports:window` answers at once. */
const PAGE_ROWS = 500;

/** Every organization row (one per organization per currency key) of what the filter keeps, page by page. */
async function organizationRows(reportId: string, filter: ReportFilter): Promise<TreeRow[]> {
  const rows: TreeRow[] = [];
  for (;;) {
    const page = await call('reports:window', {
      reportId,
      filter,
      sort: { key: 'label', direction: 'asc' },
      expansion: { all: 'none', toggled: [] },
      hierarchy: 'organization',
      offset: rows.length,
      count: PAGE_ROWS,
    });
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.rowCount) return rows;
  }
}

function SummaryTable({ rows }: { rows: TreeRow[] }): React.JSX.Element {
  return (
    <table className="print-table" aria-label="Organizations">
      <thead>
        <tr>
          <th>Organization</th>
          <th>Customer number</th>
          <th>Currency</th>
          <AmountHeaderCells linesLabel="Billing lines" />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const currencies = currenciesOf(row.currencyKey);
          return (
            <tr key={row.key} className={row.mismatch ? 'print-table__flagged' : undefined}>
              <td>{row.label}</td>
              <td>{row.detail}</td>
              <td>{row.currencyKey}</td>
              <td className="num">{formatCount(row.lines)}</td>
              <td className="num">
                <NumberValue value={amountText(row.cost, currencies.cost)} /> {currencies.cost}
              </td>
              <td className="num">
                <NumberValue value={amountText(row.sales, currencies.sales)} /> {currencies.sales}
              </td>
              <td className="num">{row.margin === null ? 'n/a' : <NumberValue value={amountText(row.margin, currencies.sales)} />}</td>
              <td className="num">{row.marginPercent === null ? '' : percentText(row.marginPercent).text}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function InvoicingTable({ rows }: { rows: InvoiceRow[] }): React.JSX.Element {
  return (
    <table className="print-table" aria-label="Amounts to invoice">
      <thead>
        <tr>
          {INVOICING_SCREEN_ORDER.map((column) => (
            <th key={column} className={NUMERIC_INVOICING_COLUMNS.has(column) ? 'num' : undefined}>
              {INVOICING_HEADERS[column]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key} className={row.flags.length ? 'print-table__flagged' : undefined}>
            <td>{row.customerNumber}</td>
            <td>{row.organization}</td>
            <td className="print-table__wrap">{row.groups.join(', ')}</td>
            <td>{row.currency}</td>
            <td className="num print-table__strong">
              <NumberValue value={amountText(row.amountToInvoice, row.currency)} />
            </td>
            <td className="num">{formatCount(row.lines)}</td>
            {/* Paper has no tooltips: plain text, which also keeps 20,000 rows quick to lay out. */}
            <td className="num print-table__wrap">
              {row.costs.map((cost) => (
                <div key={cost.currency}>
                  <NumberValue value={amountText(cost.amount, cost.currency)} /> {cost.currency}
                </div>
              ))}
            </td>
            <td className="num">
              {row.margin === null ? (
                'n/a'
              ) : (
                <>
                  <NumberValue value={amountText(row.margin, row.currency)} />
                  {row.marginPartial ? '*' : null}
                </>
              )}
            </td>
            <td className="print-table__wrap print-table__strong">{flagWords(row.flags)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Printable = { kind: 'tree'; rows: TreeRow[] } | { kind: 'invoicing'; rows: InvoiceRow[]; totals: InvoiceTotal[] };

/**
 * What a printout of the viewer adds below its title and totals: never the virtual list on screen (only the rows
 * in view exist), but every organization row at summary level (tree) or every Invoicing row, as plain tables whose
 * headers repeat on each page. Rendered only while printing; `onReady` once its rows are in the document.
 */
export function PrintableReport({
  reportId,
  filter,
  mode,
  onReady,
  onError,
}: {
  reportId: string;
  filter: ReportFilter;
  mode: 'tree' | 'invoicing';
  onReady: () => void;
  onError: (message: string) => void;
}): React.JSX.Element {
  const callbacks = useRef({ onReady, onError });
  useEffect(() => {
    callbacks.current = { onReady, onError };
  });

  // The rows read last stay while another filter's are read: the printout never empties under the print dialog.
  const answer = useLatestAnswer(
    JSON.stringify([reportId, filter, mode]),
    async (): Promise<Printable> => {
      if (mode === 'tree') return { kind: 'tree', rows: await organizationRows(reportId, filter) };
      const invoicing = await loadInvoicing(reportId, filter);
      // In the order the Invoicing view shows them.
      return { kind: 'invoicing', rows: sortInvoiceRows(invoicing.rows, useInvoiceSort.getState().sort), totals: invoicing.totals };
    },
    { keepPrevious: true },
  );
  const printable = answer.data;

  useEffect(() => {
    if (answer.error) callbacks.current.onError(answer.error);
  }, [answer.error]);
  useEffect(() => {
    if (printable) callbacks.current.onReady();
  }, [printable]);

  return (
    <div className="printable" data-testid="printable-report">
      {printable?.kind === 'tree' ? (
        <>
          <h3>Organizations ({countOf(printable.rows.length, 'row')}, one per organization and currency)</h3>
          <SummaryTable rows={printable.rows} />
        </>
      ) : printable?.kind === 'invoicing' ? (
        <>
          <h3>Amounts to invoice per currency</h3>
          <InvoiceTotalsTable totals={printable.totals} />
          <h3>Invoicing ({countOf(printable.rows.length, 'row')}, one per organization and customer currency)</h3>
          <InvoicingTable rows={printable.rows} />
        </>
      ) : null}
    </div>
  );
}
