import type { ReportView } from '../../../../shared/contract';
import type { ReportFilterState } from './use-report-data';

interface Props {
  view: ReportView;
  filter: ReportFilterState;
  /** "N of M billing lines" for what the tree shows now, or null before its first answer. */
  lineCount: { shown: number; total: number } | null;
  onExpandOrganizations: () => void;
  onCollapseAll: () => void;
}

function Choice({ label, all, value, choices, onChange }: { label: string; all: string; value: string | undefined; choices: string[]; onChange: (value: string) => void }): React.JSX.Element {
  return (
    <select aria-label={label} value={value ?? ''} onChange={(event) => onChange(event.target.value)}>
      <option value="">{all}</option>
      {choices.map((choice) => (
        <option key={choice}>{choice}</option>
      ))}
    </select>
  );
}

/** The viewer's filters (choices from the report itself), the line count, and opening or closing the whole tree. */
export function ReportFilters({ view, filter, lineCount, onExpandOrganizations, onCollapseAll }: Props): React.JSX.Element {
  const { draft, change, clear } = filter;
  const filtered = Object.keys(draft).length > 0;
  return (
    <div className="filters" role="search" aria-label="Report filters">
      <Choice label="Organization group" all="All groups" value={draft.group} choices={view.groups} onChange={(value) => change('group', value, false)} />
      <input type="search" aria-label="Organization" placeholder="Organization or customer no." value={draft.organization ?? ''} onChange={(event) => change('organization', event.target.value, true)} />
      <Choice label="Service" all="All services" value={draft.service} choices={view.services} onChange={(value) => change('service', value, false)} />
      <Choice label="Currency" all="All currencies" value={draft.currency} choices={view.currencies} onChange={(value) => change('currency', value, false)} />
      <input type="search" aria-label="Search text" placeholder="Product, item code, PO, id…" value={draft.text ?? ''} onChange={(event) => change('text', event.target.value, true)} />
      {filtered ? (
        <button type="button" className="link" onClick={clear}>
          Clear filters
        </button>
      ) : null}
      <span className="count" data-testid="line-count" aria-live="polite">
        {lineCount ? `${lineCount.shown.toLocaleString()} of ${lineCount.total.toLocaleString()} billing lines` : 'Counting billing lines…'}
      </span>
      <button type="button" className="link" onClick={onExpandOrganizations}>
        Expand organizations
      </button>
      <button type="button" className="link" onClick={onCollapseAll}>
        Collapse all
      </button>
    </div>
  );
}
