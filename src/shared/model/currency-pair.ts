/**
 * A currency group: "SEK" where a service is bought and sold in one currency, "USD→SEK" where it is bought in one
 * and sold in another (custom services). Amounts of two currencies are never added together, so totals, margins and
 * the bridge are kept per key; a two-currency key has no margin. The ledger builds the same key in SQL
 * (currencyPairSql in core/ledger/keys.ts, from PAIR_ARROW).
 */
export const PAIR_ARROW = '→';

export function currencyPairKey(costCurrency: string, salesCurrency: string): string {
  return costCurrency === salesCurrency ? costCurrency : `${costCurrency}${PAIR_ARROW}${salesCurrency}`;
}

/** The purchase (cost) and sales currency a key stands for: "USD→SEK" → USD and SEK, "SEK" → SEK and SEK. */
export function currenciesOf(key: string): { cost: string; sales: string } {
  const [cost = '', sales = cost] = key.split(PAIR_ARROW);
  return { cost, sales };
}

/** True for a key of one currency, where cost and sales may be subtracted (a margin). */
export function isSingleCurrency(key: string): boolean {
  return !key.includes(PAIR_ARROW);
}
