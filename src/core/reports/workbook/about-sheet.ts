import { isEmptyFilter, type ReportFilter } from '@shared/report-filter';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { type AboutRow, localTime, writeAboutRows } from '@core/xlsx/about';
import { cellNumber, moneyFormat, styleOf } from '@core/xlsx/number-formats';
import type { Sheets } from '@core/xlsx/sheet-series';
import type { WorkbookOptions } from '../report-workbook';
import type { Amounts } from './amounts';
import { INVOICING_EXPLANATION } from './invoicing-sheet';
import { type NameOrder, nameOrderText } from '@shared/model/name-order';
import { endedBefore, fetchedBeforeEndText } from '@shared/model/period-end';

export const MARGIN_EXPLANATION =
  'Margin = total customer price (sales) − total reseller price (cost), summed exactly from the billing lines. ' +
  'Margin % = margin ÷ sales. Where a service is bought in one currency and sold in another (e.g. USD→SEK), no margin is given: ' +
  'amounts in different currencies are never added or subtracted.';

function describeFilter(filter: ReportFilter | undefined): string {
  if (!filter || isEmptyFilter(filter)) return 'Whole report';
  const parts = [
    filter.group && `group "${filter.group}"`,
    filter.ungrouped && 'organizations in no group',
    filter.organization?.trim() && `organization contains "${filter.organization.trim()}"`,
    filter.service && `service "${filter.service}"`,
    filter.currency && `currency ${filter.currency}`,
    filter.text?.trim() && `text "${filter.text.trim()}"`,
  ].filter(Boolean);
  return `Filtered view: ${parts.join(', ')}`;
}

export function writeAbout(
  sheets: Sheets,
  meta: ReportMeta,
  totals: Amounts[],
  lines: number,
  split: string[][],
  added: AboutRow[],
  options: WorkbookOptions & { nameOrder: NameOrder },
) {
  const worksheet = sheets.workbook.addWorksheet('About', sheets.print);
  worksheet.columns = [{ width: 34 }, { width: 22 }, { width: 22 }, { width: 22 }, { width: 22 }];
  const perSheet = sheets.maxRows - 1;
  // Closebook's own times in the machine's zone, named; the service's zoneless dates stay as it gave them.
  const fetched = localTime(new Date(meta.fetchedAt), options.timeZone) ?? { value: meta.fetchedAt, zone: 'as recorded' };
  const exported = localTime(options.exportedAt, options.timeZone) ?? { value: '', zone: 'unknown' };
  const rows: AboutRow[] = [
    { values: ['Report', meta.name] },
    { values: ['Period', `${meta.period.startDate} – ${meta.period.endDate}`] },
    ...added,
    { values: ['Profile', meta.profileName] },
    { values: ['Service', meta.host] },
    { values: [`Fetched at (${fetched.zone})`, fetched.value] },
    // A month not over when fetched: whoever reads the file is told it is what was billed so far.
    ...(endedBefore(meta.period.endDate, meta.fetchedAt) ? [] : [{ values: ['Partial', `${fetchedBeforeEndText(meta.period.endDate, meta.fetchedAt)}.`] }]),
    { values: [`Exported at (${exported.zone})`, exported.value] },
    { values: ['Closebook version', options.appVersion] },
    { values: ['Scope', describeFilter(options.filter)] },
    {
      values: [
        'Names sorted as',
        `${nameOrderText(options.nameOrder)}, the profile's order: organizations, services and subscriptions, in every sheet as in Closebook's views and CSV files.`,
      ],
    },
    { values: ['Organizations in report', meta.counts.organizations] },
    { values: ['Services in report', meta.counts.services] },
    { values: ['Subscriptions in report', meta.counts.subscriptions] },
    { values: ['Billing lines in report', meta.counts.lines] },
    { values: ['Billing lines exported', lines] },
    ...split.map((names) => ({
      values: [
        `${names[0]} sheets`,
        `${names.join(', ')}: more rows than one Excel sheet holds (${perSheet.toLocaleString('en')}), so they continue on the next sheet.`,
      ],
    })),
    { values: ['How the amount to invoice is computed', INVOICING_EXPLANATION] },
    { values: ['How margin is computed', MARGIN_EXPLANATION] },
    { values: [] },
    { values: ['Totals of the exported lines', 'Currency', 'Cost', 'Sales', 'Margin'], look: 'header' },
  ];
  let rowNumber = writeAboutRows(worksheet, rows);
  for (const total of totals) {
    const row = worksheet.getRow(rowNumber++);
    row.values = [
      '',
      total.currency,
      cellNumber(total.cost),
      cellNumber(total.sales),
      total.margin === null ? 'n/a (two currencies)' : cellNumber(total.margin),
    ];
    row.getCell(3).style = styleOf(moneyFormat(total.costCurrency));
    row.getCell(4).style = styleOf(moneyFormat(total.salesCurrency));
    if (total.margin !== null) row.getCell(5).style = styleOf(moneyFormat(total.costCurrency));
    row.commit();
  }
  worksheet.commit();
}
