import type { Ledger } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import { type Column, SheetSeries, type Sheets } from '@core/xlsx/sheet-series';
import { AMOUNT_COLUMNS, AMOUNT_FIELDS, type Amounts, ORGANIZATIONS, PAIR, amountRowXml, amountStyles, writeTotalRows } from './amounts';
import type { Lines } from './lines';

const SERVICE_ROW = rowShape({ ...AMOUNT_FIELDS, name: 'text', customer_number: 'text', groups: 'text', service_name: 'text', service_id: 'text' });

/** The `Services` table: these label columns, then the amount columns (AMOUNT_COLUMNS); each label's header, width and field. */
const SERVICES_LABELS: (Column & { field: 'name' | 'customer_number' | 'groups' | 'service_name' | 'service_id' })[] = [
  { header: 'Organization', width: 36, field: 'name' },
  { header: 'Customer number', width: 16, field: 'customer_number' },
  { header: 'Organization groups', width: 30, field: 'groups' },
  { header: 'Service', width: 34, field: 'service_name' },
  { header: 'Service ID', width: 38, field: 'service_id' },
];

/** One row per organization, service and currency pair, in organization then service order; grand totals per pair. */
export async function writeServices(sheets: Sheets, ledger: Ledger, lines: Lines, totals: Amounts[]): Promise<string[]> {
  const labels = SERVICES_LABELS;
  const series = new SheetSeries(sheets, 'Services', [...labels, ...AMOUNT_COLUMNS]);
  series.ensureStarted();
  const styles = amountStyles(sheets.workbook);
  for await (const rows of ledger.stream(
    `WITH ${ORGANIZATIONS}
     SELECT a.currency, a.customer_currency, any_value(a.currency_key) AS currency_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number,
       coalesce(any_value(g.names), '') AS groups, s.service_name, s.service_id,
       sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin
     FROM (SELECT service_no, ${PAIR}, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no
     JOIN organization o ON o.org_no = s.org_no
     LEFT JOIN organization_group_names g ON g.org_key = o.org_key
     GROUP BY o.org_rank, o.org_key, s.service_id, s.service_name, a.currency, a.customer_currency
     ORDER BY o.org_rank, min(s.name_rank), s.service_id, a.customer_currency, a.currency`,
    lines.params,
  )) {
    for (const row of SERVICE_ROW.all(rows)) {
      series.nextXml((rowNumber) => amountRowXml(styles, rowNumber, labels, row));
    }
    await series.caughtUp();
  }
  writeTotalRows(series, labels.length, totals);
  series.commit();
  return series.names;
}
