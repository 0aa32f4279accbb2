import { collationOf, FALLBACK_NAME_ORDER, NameOrder } from '@shared/model/name-order';
import type { Ledger } from './ledger';
import { rowShape } from './rows';
import { reportNumbersSql } from './report-numbers';

/**
 * The names a keystroke or an export sorts (organizations, services and subscriptions: hundreds of thousands in a
 * 1,000,000-line month) carry their place in the report's name order as a whole number, `name_rank`: sorting by it
 * costs what sorting by lower(name) did, where collating each name at every keystroke cost eight times that, and an
 * export collated a month's subscriptions again at every run. Ranks are per report, made in the order
 * `reports.name_order` names (see reports/name-orders.ts, which makes them anew when a profile's order changes).
 */
export const RANKED_NAMES = {
  organizations: { no: 'org_no', name: 'name' },
  services: { no: 'service_no', name: 'service_name' },
  subscriptions: { no: 'subscription_no', name: 'item_name' },
} as const;

type RankedNames = Readonly<Record<string, { readonly no: string; readonly name: string }>>;

/** An ICU sort key of a text column in an order: for names not ranked ahead (products, groups), sorted where they are read. */
export function nameKeySql(column: string, order: NameOrder): string {
  // collationOf gives only the fixed ids of NAME_ORDERS: nothing typed reaches this literal.
  return `icu_sort_key(${column}, '${collationOf(order)}')`;
}

/**
 * The statements that rank every name of one report ($1), or of every report (`report` 'all': the migration), in an
 * order, and record it. Equal names share a rank; names the collation finds equal but are not (rare) go by their text.
 */
export function rankNamesSql(order: NameOrder, report: 'one' | 'all' = 'one', tables: RankedNames = RANKED_NAMES): string[] {
  return [
    ...Object.entries(tables).map(([table, { no, name }]) =>
      reportNumbersSql({ table, no, column: 'name_rank', order: `${nameKeySql(name, order)}, ${name}` }, report),
    ),
    `UPDATE reports SET name_order = '${order}' ${report === 'one' ? 'WHERE report_id = $1' : ''}`,
  ];
}

const KEPT = rowShape({ profile_id: 'text', name_order: 'text?' });

/** A report's profile and the order its names are ranked in now (null if none can be read); undefined: no such report. */
export async function keptNames(ledger: Pick<Ledger, 'all'>, reportId: string): Promise<{ profileId: string; order: NameOrder | null } | undefined> {
  const [row] = KEPT.all(await ledger.all('SELECT profile_id, name_order FROM reports WHERE report_id = $1', [reportId]));
  if (!row) return undefined;
  const order = NameOrder.safeParse(row.name_order);
  return { profileId: row.profile_id, order: order.success ? order.data : null };
}

/** The order a report's names are ranked in now (what every export of it sorts by, and its About sheet names). */
export async function keptNameOrder(ledger: Pick<Ledger, 'all'>, reportId: string): Promise<NameOrder> {
  return (await keptNames(ledger, reportId))?.order ?? FALLBACK_NAME_ORDER;
}
