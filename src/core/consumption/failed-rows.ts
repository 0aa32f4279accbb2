import type { Submission } from '@shared/schemas/consumption';
import { CSV_BOM, csvCell, csvLine } from '../formats/csv';
import { smallWorkbook } from '@core/xlsx';

const FIELD_HEADERS = ['Row', 'Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Consumption ID'];
const QUANTITY_AT = FIELD_HEADERS.indexOf('Quantity');

/** The export's header: the fields, the user's own columns as their file had them, then the service's error. */
function headersOf(submission: Submission): string[] {
  return [...FIELD_HEADERS, ...(submission.extraColumns ?? []), 'Error'];
}

/** Every failed record beside its input row (or with no row, when it matched none), ready to fix and resend. */
export function failedRowTable(submission: Submission): (string | number)[][] {
  const byRow = new Map(submission.rows.map((row) => [row.row, row]));
  const extraColumns = submission.extraColumns ?? [];
  return submission.failures.map((failure) => {
    const row = failure.row === null ? undefined : byRow.get(failure.row);
    return [
      failure.row ?? '',
      row?.subscriptionId ?? failure.subscriptionId,
      row ? row.isAddon || 'no' : failure.addonId ? 'yes' : 'no',
      row?.addonId ?? failure.addonId ?? '',
      row?.quantity ?? (failure.quantity === null ? '' : String(failure.quantity)),
      row?.consumptionId ?? '',
      ...extraColumns.map((_, index) => row?.extra?.[index] ?? ''),
      failure.errorMessage,
    ];
  });
}

/** Ids, the user's own values and the service's message are text, escaped against formulas; the row number and quantity are numbers when they read as one. */
const kindAt = (index: number): 'number' | 'text' => (index === 0 || index === QUANTITY_AT ? 'number' : 'text');

export function failedRowsCsv(submission: Submission): string {
  return (
    CSV_BOM +
    [headersOf(submission), ...failedRowTable(submission)]
      .map((cells, line) => csvLine(cells.map((cell, index) => csvCell(cell, line === 0 ? 'text' : kindAt(index)))))
      .join('')
  );
}

export function failedRowsXlsx(submission: Submission): Promise<Buffer> {
  return smallWorkbook([
    {
      name: 'Failed records',
      columns: headersOf(submission).map((header, index) => ({
        header,
        width: header === 'Error' ? 70 : index < FIELD_HEADERS.length && header.endsWith('ID') ? 40 : index < FIELD_HEADERS.length ? 12 : 20,
      })),
      rows: failedRowTable(submission).map((values) =>
        values.map((value, index) => (index === QUANTITY_AT && value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value)),
      ),
    },
  ]);
}
