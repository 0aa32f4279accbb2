import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { failureStillApplies, validateRows } from '@shared/consumption-rows';
import { PLAIN_HEADERS, type ConsumptionField, type InputRow, type RowFailure } from '@shared/schemas/consumption';
import { useElementWidth } from '@renderer/hooks/use-element-width';
import { useFocusStaysInList } from '@renderer/hooks/keyboard-focus';
import { useConsumption } from './consumption-store';
import { RowNames } from './RowNames';

/** The grid's columns: the id with the names it stands for, then the rest of what is sent; the user's own columns come last. */
const COLUMNS: ConsumptionField[] = ['subscriptionId', 'quantity', 'isAddon', 'addonId', 'consumptionId'];

/** The fixed columns' widths (consumption.css) add up to this; each own column adds its own. */
const MIN_WIDTH = 750;
const OWN_COLUMN_WIDTH = 120;
/** Own columns that do not fit side by side share one column this wide, each value under its name. */
const STACKED_OWN_WIDTH = 180;
/** A row with its names is about three lines; rows are measured once drawn. */
const ESTIMATED_ROW_HEIGHT = 64;
const OVERSCAN_ROWS = 10;

/** The height of the rows not drawn, above or below those in view. */
function Spacer({ height, columns }: { height: number; columns: number }): React.JSX.Element {
  return (
    <tbody aria-hidden="true">
      <tr className="batch__spacer" style={{ height }}>
        <td colSpan={columns} />
      </tr>
    </tbody>
  );
}

function byRow<T>(items: T[], rowOf: (item: T) => number | null): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const item of items) {
    const row = rowOf(item);
    if (row !== null) map.set(row, [...(map.get(row) ?? []), item]);
  }
  return map;
}

export interface BatchGridProps {
  rows: InputRow[];
  /** Scrolls this row into view when it changes (`request` tells two asks for the same row apart). */
  showRow?: { row: number; request: number } | null;
  extraColumns: string[];
  failures: RowFailure[];
  /** Shown as text: a past batch, or the batch being prepared while its task runs. */
  readOnly: boolean;
}

/**
 * A batch as a grid: each row with the customer and subscription its id stands for, its own problems (checked as
 * you type) and, after a failed task, the service's error for that row — so fixing happens in place, beside the
 * message. The user's own columns are shown, marked as not sent.
 */
export function BatchGrid({ rows, showRow = null, extraColumns, failures, readOnly }: BatchGridProps): React.JSX.Element {
  const setCell = useConsumption((state) => state.setCell);
  const removeRow = useConsumption((state) => state.removeRow);
  const addRow = useConsumption((state) => state.addRow);
  const names = useConsumption((state) => state.names);
  // A batch that was sent was valid: only the one being prepared is checked.
  const { problems } = useMemo(() => (readOnly ? { problems: [] } : validateRows(rows)), [rows, readOnly]);
  const problemsByRow = useMemo(() => byRow(problems, (problem) => problem.row), [problems]);
  const failuresByRow = useMemo(() => byRow(failures, (failure) => failure.row), [failures]);
  // Only the rows in view are drawn (a batch may have 50,000); each row and its messages is one measured <tbody>.
  const scroller = useRef<HTMLDivElement>(null);
  // Own columns side by side when they fit; else one column, so the grid never scrolls sideways for them.
  const gridWidth = useElementWidth(scroller);
  const stackOwn = extraColumns.length > 1 && gridWidth !== null && gridWidth < MIN_WIDTH + OWN_COLUMN_WIDTH * extraColumns.length;
  const width = 3 + COLUMNS.length + (stackOwn ? 1 : extraColumns.length);
  const head = useRef<HTMLTableSectionElement>(null);
  const [headHeight, setHeadHeight] = useState(40);
  useLayoutEffect(() => setHeadHeight(head.current?.offsetHeight ?? 40), [extraColumns.length, stackOwn]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_ROW_HEIGHT,
    overscan: OVERSCAN_ROWS,
    scrollMargin: headHeight,
    scrollPaddingStart: headHeight,
    getItemKey: (index) => rows[index]?.row ?? index,
  });
  // The row asked for is scrolled to, then — once it is drawn — its first cell takes the keyboard, to fix it there.
  const [focusRow, setFocusRow] = useState<number | null>(null);
  useEffect(() => {
    const index = showRow ? rows.findIndex((row) => row.row === showRow.row) : -1;
    if (index >= 0) {
      virtualizer.scrollToIndex(index, { align: 'center' });
      setFocusRow(showRow?.row ?? null);
    }
    // Only a new ask scrolls: typing in the rows must not.
  }, [showRow]);
  useEffect(() => {
    if (focusRow === null) return;
    const row = scroller.current?.querySelector(`tr[data-row="${focusRow}"]`);
    if (!row) return; // not drawn yet: the next render (the scroll's) looks again
    setFocusRow(null);
    row.querySelector<HTMLElement>('input')?.focus({ preventScroll: true }); // none in a batch shown read-only
  });
  // A row removed from the keyboard hands the focus to the row now in its place (its ✕), the last one to Add a row.
  const addButton = useRef<HTMLButtonElement>(null);
  const keepFocus = useFocusStaysInList(
    scroller,
    'tbody[data-index]',
    useCallback(() => addButton.current, []),
  );
  const remove = (row: number, button: HTMLElement) =>
    void keepFocus(button.closest('tbody'), async () => {
      removeRow(row);
      return true;
    });
  const items = virtualizer.getVirtualItems();
  const above = items.length ? (items[0]?.start ?? headHeight) - headHeight : 0;
  const below = items.length ? virtualizer.getTotalSize() - ((items.at(-1)?.end ?? headHeight) - headHeight) : 0;

  return (
    <div ref={scroller} className={`table-scroll batch${readOnly ? ' batch--read-only' : ''}`}>
      <table
        className="grid"
        aria-label="Consumption rows"
        aria-readonly={readOnly}
        style={{ minWidth: `${MIN_WIDTH + (stackOwn ? STACKED_OWN_WIDTH : OWN_COLUMN_WIDTH * extraColumns.length)}px` }}
      >
        <colgroup>
          <col className="col-row" />
          <col className="col-remove" />
          <col className="col-subscriptionId" />
          {COLUMNS.slice(1).map((column) => (
            <col key={column} className={`col-${column}`} />
          ))}
          {stackOwn ? <col className="col-extra-stacked" /> : extraColumns.map((column, index) => <col key={`${index}-${column}`} className="col-extra" />)}
        </colgroup>
        <thead ref={head}>
          <tr>
            <th className="num">Row</th>
            <th />
            <th>
              {PLAIN_HEADERS.subscriptionId} <span className="header-note">customer · subscription · products (saved reports)</span>
            </th>
            {COLUMNS.slice(1).map((column) => (
              <th key={column}>{PLAIN_HEADERS[column]}</th>
            ))}
            {stackOwn ? (
              <th
                className="extra-header"
                title={`Your own columns (${extraColumns.join(', ')}): kept with the batch and in the failed rows, never sent to the service`}
              >
                Your columns <span className="header-note">not sent</span>
              </th>
            ) : (
              extraColumns.map((column, index) => (
                <th
                  key={`${index}-${column}`}
                  className="extra-header"
                  title="Your own column: kept with the batch and in the failed rows, never sent to the service"
                >
                  {column} <span className="header-note">not sent</span>
                </th>
              ))
            )}
          </tr>
        </thead>
        {above > 0 ? <Spacer height={above} columns={width} /> : null}
        {items.map((item) => {
          const row = rows[item.index] as InputRow;
          const rowProblems = problemsByRow.get(row.row) ?? [];
          // The service's error stays only while the row holds what failed: an edited row's old error is gone.
          const rowFailures = (failuresByRow.get(row.row) ?? []).filter((failure) => readOnly || failureStillApplies(failure, row));
          const invalid = new Set(rowProblems.map((problem) => problem.field));
          const messages = rowProblems.length + rowFailures.length > 0;
          const value = (column: ConsumptionField) =>
            readOnly ? (
              <div className={`cell-text cell-text--${column}`} title={row[column]}>
                {row[column]}
              </div>
            ) : (
              <input
                className={`cell-input cell-input--${column}${invalid.has(column) ? ' cell-input--invalid' : ''}`}
                aria-label={`Row ${row.row} ${PLAIN_HEADERS[column]}`}
                aria-invalid={invalid.has(column)}
                value={row[column]}
                title={row[column]}
                onChange={(event) => setCell(row.row, column, event.target.value)}
              />
            );
          return (
            <tbody key={item.key} data-index={item.index} ref={virtualizer.measureElement}>
              <tr data-row={row.row} className={messages ? 'row--problem' : undefined}>
                <td className="num">{row.row}</td>
                <td>
                  {readOnly ? null : (
                    <button
                      type="button"
                      className="link danger"
                      aria-label={`Remove row ${row.row}`}
                      title="Remove this row"
                      onClick={(event) => remove(row.row, event.currentTarget)}
                    >
                      ✕
                    </button>
                  )}
                </td>
                <td>
                  {value('subscriptionId')}
                  <div className="names" data-testid={`row-${row.row}-names`}>
                    <RowNames row={row} name={names[row.subscriptionId.trim().toLowerCase()]} />
                  </div>
                </td>
                {COLUMNS.slice(1).map((column) => (
                  <td key={column}>{value(column)}</td>
                ))}
                {stackOwn ? (
                  <td className="cell-text--extra">
                    {extraColumns.map((column, index) => (
                      <div key={`${index}-${column}`} className="cell-text own-stacked" title={`${column}: ${row.extra?.[index] ?? ''}`}>
                        <span className="own-stacked__name">{column}:</span>{' '}
                        <span data-testid={`row-${row.row}-own-${index + 1}`}>{row.extra?.[index] ?? ''}</span>
                      </div>
                    ))}
                  </td>
                ) : (
                  extraColumns.map((column, index) => (
                    <td
                      key={`${index}-${column}`}
                      className="cell-text cell-text--extra"
                      title={row.extra?.[index]}
                      data-testid={`row-${row.row}-own-${index + 1}`}
                    >
                      {row.extra?.[index] ?? ''}
                    </td>
                  ))
                )}
              </tr>
              {messages ? (
                <tr className="row--problem row-messages-line">
                  <td colSpan={2} />
                  <td colSpan={width - 2} className="row-messages" data-testid={`row-${row.row}-messages`}>
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
            </tbody>
          );
        })}
        {below > 0 ? <Spacer height={below} columns={width} /> : null}
      </table>
      {readOnly ? null : (
        <button type="button" className="link" onClick={addRow} ref={addButton}>
          + Add a row
        </button>
      )}
    </div>
  );
}
