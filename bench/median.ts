/** The middle value of `values` (the upper one of an even count): each figure the bench reports over several runs. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
