/**
 * The statement that numbers a table's rows within each report into `column`, in `order` (`dense_rank`: rows equal
 * in it share a number): of one report ($1), or of every report (`report` 'all': a migration). `alias` names the
 * table where `order` is written for one (ledger/keys.ts ORG_KEY reads `o.`).
 */
export function reportNumbersSql(
  { table, no, column, order, alias = '' }: { table: string; no: string; column: string; order: string; alias?: string },
  report: 'one' | 'all',
): string {
  const [where, same] = report === 'one' ? ['WHERE report_id = $1', `${table}.report_id = $1 AND r.report_id = $1`] : ['', `${table}.report_id = r.report_id`];
  return `UPDATE ${table} SET ${column} = r.${column}
    FROM (SELECT report_id, ${no}, dense_rank() OVER (PARTITION BY report_id ORDER BY ${order})::INTEGER AS ${column} FROM ${table} ${alias} ${where}) r
    WHERE ${same} AND ${table}.${no} = r.${no}`;
}
