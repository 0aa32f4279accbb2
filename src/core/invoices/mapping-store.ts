import { AppError } from '@shared/errors';
import { CustomerMapping, type InvoiceMapping, ItemMapping } from '@shared/schemas/invoices';
import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import { keptJson } from '@core/ledger/kept-json';
import { formulaSafe } from '@core/formats/csv';

/** A profile's Broker at its service: what a mapping, the settings and the invoice runs are kept under. */
export interface Broker {
  host: string;
  resellerId: string;
}

const KEPT = rowShape({ mapping: 'text' });

/** The item entry's key as one text ("product:P-1"), for messages and lookups. */
export const itemKey = (item: { match: string; id: string }) => `${item.match}:${item.id}`;

/**
 * Text a spreadsheet or an accounting system would run as a formula (a value beginning with = + - @ or a control
 * character, or such a cell start after a separator): import files keep values exact, so it is refused, not escaped.
 */
export function looksLikeFormula(text: string): boolean {
  return text !== '' && (formulaSafe(text, 'text') !== text || text.charCodeAt(0) < 0x20);
}

const CUSTOMER_TEXT = ['contactName', 'customerNumber', 'buyerVatId', 'buyerReference', 'taxCode'] as const;
const ITEM_TEXT = ['itemCode', 'account', 'taxCode', 'exemptionReason', 'description'] as const;

/** Where a value looksLikeFormula, in words: at its start, or where a cell may start inside it. */
function formulaAt(text: string): string {
  return text.charCodeAt(0) < 0x20 || /^ *[=+\-@]/.test(text)
    ? 'begins like a formula'
    : 'has = + - or @ after a comma, semicolon or tab, where a cell may begin';
}

/** Every field of an entry a file carries that a spreadsheet would run as a formula, named as the entry and field. */
export function formulaProblems(mapping: InvoiceMapping): string[] {
  const problems: string[] = [];
  for (const customer of mapping.customers)
    for (const field of CUSTOMER_TEXT) {
      const text = customer[field];
      if (looksLikeFormula(text)) problems.push(`customer ${customer.orgId}: ${field} "${text}" ${formulaAt(text)}`);
    }
  for (const item of mapping.items)
    for (const field of ITEM_TEXT) {
      const text = item[field];
      if (looksLikeFormula(text)) problems.push(`item ${itemKey(item)}: ${field} "${text}" ${formulaAt(text)}`);
    }
  return problems;
}

/** Refuses a mapping with any value that would run as a formula, naming each (every record keeps only clean ones). */
export function refuseFormulas(mapping: InvoiceMapping): void {
  const problems = formulaProblems(mapping);
  if (problems.length)
    throw new AppError(
      'validation',
      `These values would run as formulas in a spreadsheet and are not kept: ${problems.join('; ')}. Reword each so that no = + - @ or tab begins it or follows a comma, semicolon or tab.`,
    );
}

/** The mapping kept for a Broker; an entry that no longer validates (written by another version) is named, not dropped. */
export async function readMapping(ledger: Ledger, broker: Broker): Promise<InvoiceMapping> {
  const read = async (table: string) =>
    KEPT.all(await ledger.all(`SELECT mapping FROM ${table} WHERE host = $1 AND reseller_id = $2`, [broker.host, broker.resellerId]));
  const parse = <T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, text: string, what: string): T => {
    const parsed = schema.safeParse(keptJson(text));
    if (!parsed.success)
      throw new AppError('storage', `A kept ${what} mapping could not be read (${text.slice(0, 80)}). Import the mapping again to replace it.`);
    return parsed.data;
  };
  const customers = (await read('invoice_customers')).map((row) => parse(CustomerMapping, row.mapping, 'customer'));
  const items = (await read('invoice_items')).map((row) => parse(ItemMapping, row.mapping, 'item'));
  customers.sort((a, b) => a.orgId.localeCompare(b.orgId));
  items.sort((a, b) => itemKey(a).localeCompare(itemKey(b)));
  return { customers, items };
}

/**
 * Adds or replaces entries (by org id; by match and id) in one transaction; `replaceAll` first removes every entry
 * of the Broker (an import of the whole mapping). The caller has refused formula-like values (refuseFormulas).
 */
export async function saveMapping(ledger: Ledger, broker: Broker, mapping: InvoiceMapping, who: string, at: string, replaceAll: boolean): Promise<void> {
  refuseFormulas(mapping); // again here: the store keeps only clean values, whoever calls it
  // The entries go in as lists, one statement per table: a statement per entry took about 7 ms each and 500 MB for
  // 2,000 customers, and ran DuckDB out of memory at 10,000. An entry given twice is kept as given last.
  const customers = [...new Map(mapping.customers.map((customer) => [customer.orgId, customer])).values()];
  const items = [...new Map(mapping.items.map((item) => [itemKey(item), item])).values()];
  await ledger.write(async (transaction: LedgerTransaction) => {
    const key = [broker.host, broker.resellerId];
    if (replaceAll) {
      await transaction.run('DELETE FROM invoice_customers WHERE host = $1 AND reseller_id = $2', key);
      await transaction.run('DELETE FROM invoice_items WHERE host = $1 AND reseller_id = $2', key);
    }
    if (customers.length)
      await transaction.run('INSERT OR REPLACE INTO invoice_customers SELECT $1, $2, unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), $5, $6', [
        ...key,
        customers.map((customer) => customer.orgId),
        customers.map((customer) => JSON.stringify(customer)),
        at,
        who,
      ]);
    if (items.length)
      await transaction.run('INSERT OR REPLACE INTO invoice_items SELECT $1, $2, unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), unnest($5::VARCHAR[]), $6, $7', [
        ...key,
        items.map((item) => item.match),
        items.map((item) => item.id),
        items.map((item) => JSON.stringify(item)),
        at,
        who,
      ]);
  });
}
