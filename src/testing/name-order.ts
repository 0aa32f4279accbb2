import { collationOf, FALLBACK_NAME_ORDER, type NameOrder } from '@shared/model/name-order';

/**
 * Names compared as a month ranked in `order` has them (the test months' profile has none: the fallback), by Node's
 * own ICU — the tests' oracle, not DuckDB's — and names it finds equal by their text, as the ranks are.
 */
export function byName(order: NameOrder = FALLBACK_NAME_ORDER): (a: string, b: string) => number {
  const collator = new Intl.Collator(collationOf(order));
  return (a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Lists of names compared name by name (organization, service, subscription). */
export function byNames(order: NameOrder = FALLBACK_NAME_ORDER): (a: string[], b: string[]) => number {
  const compare = byName(order);
  return (a, b) => {
    for (let at = 0; at < Math.min(a.length, b.length); at++) {
      const order = compare(a[at]!, b[at]!);
      if (order) return order;
    }
    return a.length - b.length;
  };
}
