/**
 * Compares texts as DuckDB's ORDER BY does (VARCHAR without a collation: by their UTF-8 bytes, which is by code
 * point), with NULL last as there, for rows ordered in JavaScript instead of in the ledger. JavaScript's own `<`
 * compares UTF-16 units, which differs from it for the characters past U+FFFF against those from U+E000 to U+FFFF.
 */
export function compareAsLedger(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left !== right) return codePointOrder(left) - codePointOrder(right);
  }
  return a.length - b.length;
}

/** A UTF-16 unit's place in code point order at the first unit two texts differ in: surrogates (U+D800–U+DFFF) after U+E000–U+FFFF. */
function codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
