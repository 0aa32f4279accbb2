import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import {
  buildReportModel,
  buildTree,
  filterLines,
  isEmptyFilter,
  marginOf,
  marginPercentOf,
  type ReportFilter,
  sortTree,
  type SortKey,
  totalsByCurrency,
  type TreeSort,
} from '../../../../shared/report-model';
import type { SavedReport } from '../../../../shared/schemas/saved-report';
import { call } from '../../bridge';
import { receiveFile } from '../../bridge/files';
import { ErrorNote } from '../../components/ErrorNote';
import { formatDateTime } from '../../components/format-time';
import { useAction } from '../../components/use-action';
import { formatAmount, formatUnits } from './format';
import { TreeTable } from './TreeTable';

function allParentKeys(nodes: ReturnType<typeof buildTree>, depth: number): string[] {
  const keys: string[] = [];
  const walk = (level: ReturnType<typeof buildTree>, current: number) => {
    for (const node of level) {
      if (node.children.length && current < depth) {
        keys.push(node.key);
        walk(node.children, current + 1);
      }
    }
  };
  walk(nodes, 0);
  return keys;
}

/** One saved report: filters, per-currency totals, the tree, and the Excel export of all or of the view. */
export function ReportViewer({ report }: { report: SavedReport }): React.JSX.Element {
  const model = useMemo(() => buildReportModel(report.entries), [report]);
  const [filter, setFilter] = useState<ReportFilter>({});
  const deferredFilter = useDeferredValue(filter);
  const [sort, setSort] = useState<TreeSort>({ key: 'label', direction: 'asc' });
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const exporting = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setFilter({});
    setExpanded(new Set());
  }, [report]);

  const lines = useMemo(() => filterLines(model, deferredFilter), [model, deferredFilter]);
  const roots = useMemo(() => sortTree(buildTree(lines), sort), [lines, sort]);
  const totals = useMemo(() => totalsByCurrency(lines), [lines]);
  const filtered = !isEmptyFilter(filter);

  const exportWorkbook = async (scope: 'all' | 'view') => {
    setNotice(null);
    await exporting.run(async () => setNotice(receiveFile(await call('reports:export', { reportId: report.meta.id, ...(scope === 'view' ? { filter } : {}) }))), scope);
  };

  const update = (key: keyof ReportFilter) => (value: string) => setFilter((current) => ({ ...current, [key]: value || undefined }));
  const toggle = (key: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const onSort = (key: SortKey) => setSort((current) => ({ key, direction: current.key === key && current.direction === 'asc' ? 'desc' : key === 'label' ? 'asc' : 'desc' }));

  return (
    <section className="viewer" aria-label={`Report ${report.meta.name}`}>
      <div className="viewer__header">
        <div>
          <h2>{report.meta.name}</h2>
          <div className="muted">
            {report.meta.period.startDate} – {report.meta.period.endDate} · {report.meta.profileName} ({report.meta.host}) · fetched {formatDateTime(report.meta.fetchedAt)} · {report.meta.counts.organizations} organizations ·{' '}
            {report.meta.counts.lines.toLocaleString()} billing lines
          </div>
        </div>
        <div className="toolbar">
          <button type="button" onClick={() => void exportWorkbook('all')} disabled={exporting.busy}>
            {exporting.running === 'all' ? 'Exporting…' : 'Export workbook'}
          </button>
          <button type="button" onClick={() => void exportWorkbook('view')} disabled={exporting.busy || !filtered} title="Only what the filters show">
            {exporting.running === 'view' ? 'Exporting…' : 'Export view'}
          </button>
        </div>
      </div>
      <ErrorNote message={exporting.error} />
      {notice ? <p className="notice" role="status">{notice}</p> : null}

      <div className="filters" role="search" aria-label="Report filters">
        <select aria-label="Organization group" value={filter.group ?? ''} onChange={(event) => update('group')(event.target.value)}>
          <option value="">All groups</option>
          {model.groups.map((group) => (
            <option key={group}>{group}</option>
          ))}
        </select>
        <input type="search" aria-label="Organization" placeholder="Organization or customer number" value={filter.organization ?? ''} onChange={(event) => update('organization')(event.target.value)} />
        <select aria-label="Service" value={filter.service ?? ''} onChange={(event) => update('service')(event.target.value)}>
          <option value="">All services</option>
          {model.services.map((service) => (
            <option key={service}>{service}</option>
          ))}
        </select>
        <select aria-label="Currency" value={filter.currency ?? ''} onChange={(event) => update('currency')(event.target.value)}>
          <option value="">All currencies</option>
          {model.currencies.map((currency) => (
            <option key={currency}>{currency}</option>
          ))}
        </select>
        <input type="search" aria-label="Search text" placeholder="Any text: product, item code, PO, id…" value={filter.text ?? ''} onChange={(event) => update('text')(event.target.value)} />
        {filtered ? (
          <button type="button" className="link" onClick={() => setFilter({})}>
            Clear filters
          </button>
        ) : null}
        <span className="count" data-testid="line-count">
          {lines.length.toLocaleString()} of {model.lines.length.toLocaleString()} billing lines
        </span>
        <button type="button" className="link" onClick={() => setExpanded(new Set(allParentKeys(roots, 1)))}>
          Expand organizations
        </button>
        <button type="button" className="link" onClick={() => setExpanded(new Set())}>
          Collapse all
        </button>
      </div>

      <table className="grid totals" aria-label="Totals per currency">
        <thead>
          <tr>
            <th>Currency</th>
            <th className="num">Lines</th>
            <th className="num">Cost</th>
            <th className="num">Sales</th>
            <th className="num">Margin</th>
            <th className="num">Margin %</th>
          </tr>
        </thead>
        <tbody>
          {[...totals.entries()].map(([currency, total]) => (
            <tr key={currency} data-testid="currency-total">
              <td>{currency}</td>
              <td className="num">{total.lines.toLocaleString()}</td>
              <td className="num">{formatUnits(total.cost, model.scale)}</td>
              <td className="num">{formatUnits(total.sales, model.scale)}</td>
              <td className="num">{formatAmount(marginOf(total, currency, model.scale)) || <span className="muted">n/a</span>}</td>
              <td className="num">{marginPercentOf(total, currency, model.scale)}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <TreeTable roots={roots} scale={model.scale} expanded={expanded} onToggle={toggle} sort={sort} onSort={onSort} />
    </section>
  );
}
