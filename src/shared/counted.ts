/**
 * A count with its noun: "1 row", "12,500 rows", "1 exception is", "3 exceptions are". `many` defaults to `one` with
 * an s; `format` writes the number (English grouping unless told: the screens give the user's locale).
 */
export function counted(count: number, one: string, many = `${one}s`, format: (count: number) => string = (value) => value.toLocaleString('en')): string {
  return `${format(count)} ${count === 1 ? one : many}`;
}
