import { z } from 'zod';

/**
 * How names are put in order (a profile's "Names sorted as", in Settings): the rules of a language, as ICU collates
 * them, with the numbers in a name compared by value ("Plan 9" before "Plan 10"). The tree, the Invoicing view, the
 * workbook, the CSV and the Close screen all sort by it, and the workbook's About sheet names it, so a file can be
 * made again in the same order. Each id is the ICU locale DuckDB collates with: Norwegian is `no`, whose rules
 * DuckDB's ICU data carries (its `nb` falls back to the root order, Å among the A's). Each has its language and, as a
 * sample, a few letters in its order.
 */
export const NAME_ORDERS = {
  en: { language: 'English', sample: 'A Å Ä … Z' },
  sv: { language: 'Swedish', sample: 'Z Å Ä Ö' },
  no: { language: 'Norwegian', sample: 'Z Æ Ø Å' },
  da: { language: 'Danish', sample: 'Z Æ Ø Å' },
  fi: { language: 'Finnish', sample: 'Z Å Ä Ö' },
  is: { language: 'Icelandic', sample: 'Z Þ Æ Ö' },
  de: { language: 'German', sample: 'A Ä … Z' },
  nl: { language: 'Dutch', sample: 'A … Z' },
  fr: { language: 'French', sample: 'E É È' },
  es: { language: 'Spanish', sample: 'N Ñ O' },
  it: { language: 'Italian', sample: 'A … Z' },
  pl: { language: 'Polish', sample: 'L Ł M' },
} as const;

export const NameOrder = z.enum(Object.keys(NAME_ORDERS) as [keyof typeof NAME_ORDERS, ...(keyof typeof NAME_ORDERS)[]]);
export type NameOrder = z.infer<typeof NameOrder>;

/**
 * English: the order of a language without rules of its own here, and of months saved before names had an order
 * (ranked again in their profile's at their first read).
 */
export const FALLBACK_NAME_ORDER: NameOrder = 'en';

/** The name order of a locale ("sv-SE" → sv, "nb-NO" and "nn" → no); a language without its own rules here sorts as English. */
export function nameOrderOfLocale(locale: string): NameOrder {
  const language = locale.toLowerCase().split(/[-_]/)[0] ?? '';
  const id = language === 'nb' || language === 'nn' ? 'no' : language;
  const parsed = NameOrder.safeParse(id);
  return parsed.success ? parsed.data : FALLBACK_NAME_ORDER;
}

/** The ICU collation of an order as DuckDB and Intl.Collator both take it: the language, numbers by value. */
export function collationOf(order: NameOrder): string {
  return `${order}-u-kn-true`;
}

/** The order in words, as the About sheet names it: "Swedish (ICU collation sv-u-kn-true, numbers by value)". */
export function nameOrderText(order: NameOrder): string {
  return `${NAME_ORDERS[order].language} (ICU collation ${collationOf(order)}, numbers by value)`;
}
