import { useRef } from 'react';
import type { ReportView } from '@shared/contract';
import { FILTER_SHORTCUT } from './use-report-shortcuts';
import { formatCount } from '@renderer/components/format-number';
import type { ReportFilterState } from './use-report-data';

interface Props {
  view: ReportView;
  filter: ReportFilterState;
  /** "N of M billing lines" for what the tree shows now, or null before its first answer. */
  /** What the rows shown count, and the text filter they answer (said in `data-for-text`: the benchmark waits for it). */
  lineCount: { shown: number; total: number; forText: string } | null;
}

/** The group choice for organizations in no group; a NUL cannot be in a group's name, so it never meets a real one. */
const NO_GROUP = '\u0000no-group';

function Choice({
  label,
  all,
  value,
  choices,
  extra,
  onChange,
}: {
  label: string;
  all: string;
  value: string | undefined;
  choices: string[];
  extra?: { value: string; label: string };
  onChange: (value: string) => void;
}): React.JSX.Element {
  return (
    <select aria-label={label} value={value ?? ''} onChange={(event) => onChange(event.target.value)}>
      <option value="">{all}</option>
      {extra ? <option value={extra.value}>{extra.label}</option> : null}
      {choices.map((choice) => (
        <option key={choice}>{choice}</option>
      ))}
    </select>
  );
}

/** The viewer's filters (choices from the report itself) and the line count. */
export function ReportFilters({ view, filter, lineCount }: Props): React.JSX.Element {
  const { draft, change, clear } = filter;
  const filtered = Object.keys(draft).length > 0;
  const text = useRef<HTMLInputElement>(null);
  return (
    <div className="filters" role="search" aria-label="Report filters">
      <Choice
        label="Organization group"
        all="All groups"
        value={draft.ungrouped ? NO_GROUP : draft.group}
        choices={view.groups}
        // Offered always: where every organization has a group the main process answers with no rows.
        extra={{ value: NO_GROUP, label: 'No group' }}
        onChange={(value) => change(value === NO_GROUP ? { group: '', ungrouped: true } : { group: value, ungrouped: false }, false)}
      />
      <input
        type="search"
        aria-label="Organization"
        placeholder="Organization or cust. no."
        value={draft.organization ?? ''}
        onChange={(event) => change({ organization: event.target.value }, true)}
      />
      <Choice label="Service" all="All services" value={draft.service} choices={view.services} onChange={(value) => change({ service: value }, false)} />
      <Choice label="Currency" all="All currencies" value={draft.currency} choices={view.currencies} onChange={(value) => change({ currency: value }, false)} />
      <input
        type="search"
        aria-label="Search text"
        ref={text}
        {...FILTER_SHORTCUT}
        placeholder="Product, code, PO, id…"
        value={draft.text ?? ''}
        onChange={(event) => change({ text: event.target.value }, true)}
      />
      {filtered ? (
        <button
          type="button"
          className="link"
          onClick={() => {
            clear();
            text.current?.focus(); // the button goes with the filters: focus stays in the bar, where the next one is typed
          }}
        >
          Clear filters
        </button>
      ) : null}
      <span className="count" data-testid="line-count" data-for-text={lineCount?.forText} aria-live="polite">
        {lineCount ? `${formatCount(lineCount.shown)} of ${formatCount(lineCount.total)} billing lines` : 'Counting billing lines…'}
      </span>
    </div>
  );
}
