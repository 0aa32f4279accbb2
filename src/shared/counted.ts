/**
 * A count with its noun, in English grouping: "1 row", "12,500 rows", "1 exception is", "3 exceptions are".
 * `many` defaults to `one` with an s.
 */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}
