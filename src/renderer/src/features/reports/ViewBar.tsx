import type { ReportColumn, ReportExpansion, ReportHierarchy } from '@shared/contract';
import { formatCount } from '@renderer/components/format-number';
import { Segmented } from '@renderer/components/Segmented';
import { ColumnChooser } from './ColumnChooser';

export type ViewMode = 'tree' | 'invoicing' | 'close';

const VIEWS: { value: ViewMode; label: string }[] = [
  { value: 'tree', label: 'Tree' },
  { value: 'invoicing', label: 'Invoicing' },
  { value: 'close', label: 'Close the month' },
];

const HIERARCHIES: { value: ReportHierarchy; label: string }[] = [
  { value: 'organization', label: 'By organization' },
  { value: 'service', label: 'By service' },
];

interface Props {
  mode: ViewMode;
  onMode: (mode: ViewMode) => void;
  hierarchy: ReportHierarchy;
  onHierarchy: (hierarchy: ReportHierarchy) => void;
  /** The columns chosen beside the name. */
  columns: readonly ReportColumn[];
  onColumns: (columns: ReportColumn[]) => void;
  onOpenAll: (all: ReportExpansion['all']) => void;
  selectedCount: number;
  copying: boolean;
  onCopyRows: () => void;
  /** "Copied 4 rows", for a few seconds. */
  status: string | null;
}

/** The bar above the viewer's body: which view, and for the tree its hierarchy, columns, expansion and copying. */
export function ViewBar({
  mode,
  onMode,
  hierarchy,
  onHierarchy,
  columns,
  onColumns,
  onOpenAll,
  selectedCount,
  copying,
  onCopyRows,
  status,
}: Props): React.JSX.Element {
  return (
    <div className="viewbar">
      <Segmented label="View" value={mode} choices={VIEWS} onChange={onMode} />
      {mode === 'tree' ? (
        <>
          <Segmented label="Hierarchy" value={hierarchy} choices={HIERARCHIES} onChange={onHierarchy} />
          <ColumnChooser chosen={columns} hierarchy={hierarchy} onChange={onColumns} />
          <button type="button" className="link" onClick={() => onOpenAll('organizations')}>
            Expand organizations
          </button>
          <button type="button" className="link" onClick={() => onOpenAll('none')}>
            Collapse all
          </button>
          <button
            type="button"
            onClick={onCopyRows}
            disabled={selectedCount === 0 || copying}
            title="The selected rows as exact values, to paste into a spreadsheet (Ctrl/⌘+C)"
          >
            Copy rows
          </button>
          {selectedCount > 0 ? <span className="muted">{formatCount(selectedCount)} selected</span> : null}
        </>
      ) : null}
      <span className="viewbar__status" role="status">
        {status}
      </span>
    </div>
  );
}
