import { FALLBACK_NAME_ORDER, type NameOrder } from '@shared/model/name-order';
import type { Ledger } from '@core/ledger/ledger';
import { silentLogger } from '@core/ports/ports';
import { NameOrders } from '@core/reports/name-orders';
import { ReportLibrary } from '@core/reports/report-library';
import { ReportViewerQueries, type WindowRequest } from '@core/reports/report-viewer';

/** The viewer of a ledger whose months' profile sorts names in `order`, and its name orders (as reports/handlers.ts makes them). */
export function viewerOn(ledger: Ledger, order: NameOrder = FALLBACK_NAME_ORDER): { viewer: ReportViewerQueries; orders: NameOrders } {
  const opened = async () => ledger;
  const orders = new NameOrders(opened, async () => order, silentLogger);
  return { orders, viewer: new ReportViewerQueries(opened, new ReportLibrary(opened), orders) };
}

/** A window of a report's tree as a test first asks for it — by name, every row closed, from the top — with `change`. */
export function windowRequest(reportId: string, change: Partial<WindowRequest> = {}): WindowRequest {
  return { reportId, filter: {}, sort: { key: 'label', direction: 'asc' }, expansion: { all: 'none', toggled: [] }, offset: 0, count: 500, ...change };
}
