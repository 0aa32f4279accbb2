import { useEffect, useId, useRef, useState } from 'react';
import type { ReportColumn, ReportHierarchy } from '@shared/contract';
import { nameHeader, REPORT_COLUMNS } from './format';

/** The columns beside the name, as checkboxes in a small popover (the name column always shows). */
export function ColumnChooser({
  chosen,
  hierarchy,
  onChange,
}: {
  chosen: readonly ReportColumn[];
  hierarchy: ReportHierarchy;
  onChange: (columns: ReportColumn[]) => void;
}): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const shown = new Set(chosen);
  const flip = (column: ReportColumn) => {
    if (shown.has(column)) shown.delete(column);
    else shown.add(column);
    // Saved in the tree's own order, so the same choice is always the same setting.
    onChange(REPORT_COLUMNS.filter((spec) => shown.has(spec.key)).map((spec) => spec.key));
  };
  return (
    <div className="menu" ref={box}>
      <button ref={button} type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Columns <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <fieldset id={id} className="menu__popover">
          <legend>Columns shown</legend>
          <label className="menu__item">
            <input type="checkbox" checked disabled /> {nameHeader(hierarchy)}
          </label>
          {REPORT_COLUMNS.map((column) => (
            <label key={column.key} className="menu__item">
              <input type="checkbox" checked={shown.has(column.key)} onChange={() => flip(column.key)} /> {column.label}
            </label>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}
