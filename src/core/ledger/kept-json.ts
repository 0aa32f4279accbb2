/**
 * A JSON text kept in the ledger as its value, or undefined when it is not JSON: the caller's schema then refuses it
 * as it refuses any value it cannot read, with its own words, never as a bare SyntaxError.
 */
export function keptJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
