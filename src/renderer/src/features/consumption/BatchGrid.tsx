import { Fragment, useMemo } from 'react';
import { validateRows } from '../../../../shared/consumption-rows';
import { CONSUMPTION_FIELDS, PLAIN_HEADERS, type ConsumptionField, type InputRow, type RowFailure } from '../../../../shared/schemas/consumption';
import { useConsumption } from './consumption-store';

function byRow<T>(items: T[], rowOf: (item: T) => number | null): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const item of items) {
    const row = rowOf(item);
    if (row !== null) map.set(row, [...(map.get(row) ?? []), item]);
  }
  return map;
}

/**
 * The batch as an editable grid. Each row shows its own problems (checked as you type) and, after a failed task,
 * the service's error for that row — so fixing happens in place, beside the message.
 */
export function BatchGrid({ rows, failures }: { rows: InputRow[]; failures: RowFailure[] }): React.JSX.Element {
  const setCell = useConsumption((state) => state.setCell);
  const removeRow = useConsumption((state) => state.removeRow);
  const addRow = useConsumption((state) => state.addRow);
  const { problems } = useMemo(() => validateRows(rows), [rows]);
  const problemsByRow = useMemo(() => byRow(problems, (problem) => problem.row), [problems]);
  const failuresByRow = useMemo(() => byRow(failures, (failure) => failure.row), [failures]);

  return (
    <div className="table-scroll batch">
      <table className="grid" aria-label="Consumption rows">
        <colgroup>
          <col className="col-row" />
          <col className="col-remove" />
          {CONSUMPTION_FIELDS.map((column) => (
            <col key={column} className={`col-${column}`} />
          ))}
        </colgroup>
        <thead>
          <tr>
            <th className="num">Row</th>
            <th />
            {CONSUMPTION_FIELDS.map((column) => (
              <th key={column}>{PLAIN_HEADERS[column]}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const rowProblems = problemsByRow.get(row.row) ?? [];
            const rowFailures = failuresByRow.get(row.row) ?? [];
            const invalid = new Set(rowProblems.map((problem) => problem.field));
            const messages = rowProblems.length + rowFailures.length > 0;
            return (
              <Fragment key={row.row}>
                <tr data-row={row.row} className={messages ? 'row--problem' : undefined}>
                  <td className="num">{row.row}</td>
                  <td>
                    <button type="button" className="link danger" aria-label={`Remove row ${row.row}`} title="Remove this row" onClick={() => removeRow(row.row)}>
                      ✕
                    </button>
                  </td>
                  {CONSUMPTION_FIELDS.map((column) => (
                    <td key={column}>
                      <input
                        className={`cell-input cell-input--${column}${invalid.has(column) ? ' cell-input--invalid' : ''}`}
                        aria-label={`Row ${row.row} ${PLAIN_HEADERS[column]}`}
                        aria-invalid={invalid.has(column)}
                        value={row[column]}
                        title={row[column]}
                        onChange={(event) => setCell(row.row, column, event.target.value)}
                      />
                    </td>
                  ))}
                </tr>
                {messages ? (
                  <tr className="row--problem row-messages-line">
                    <td colSpan={2} />
                    <td colSpan={CONSUMPTION_FIELDS.length} className="row-messages" data-testid={`row-${row.row}-messages`}>
                      {rowProblems.map((problem) => (
                        <div key={`${problem.field}-${problem.message}`} className="row-problem">
                          {PLAIN_HEADERS[problem.field as ConsumptionField] ?? problem.field}: {problem.message}
                        </div>
                      ))}
                      {rowFailures.map((failure, index) => (
                        <div key={index} className="row-failure" role="note">
                          Refused by the service: {failure.errorMessage}
                        </div>
                      ))}
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      <button type="button" className="link" onClick={addRow}>
        + Add a row
      </button>
    </div>
  );
}
