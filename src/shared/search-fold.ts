/**
 * Letters a reader without them types as other letters: NFD does not split them into a base letter and a mark, so
 * they are named here (Ø as o, Æ as ae, ß as ss …). Å, Ä, Ö, É, Ñ … lose their marks by decomposition.
 */
export const FOLDED_LETTERS: Readonly<Record<string, string>> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

const FOLDED = new RegExp(`[${Object.keys(FOLDED_LETTERS).join('')}]`, 'g');

/**
 * Text as search compares it: lower case, without diacritics — "akerberg" finds Åkerberg, "orsted" Ørsted, "cafe"
 * Café. The ledger keeps its search text folded so (schema.ts searchText), and the core's SQL folds a column the same
 * way (ledger/keys.ts foldedSql).
 */
export function foldForSearch(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(FOLDED, (letter) => FOLDED_LETTERS[letter] ?? letter);
}
