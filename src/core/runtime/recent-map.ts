/**
 * Puts `value` under `key` as the most recently used entry of `map` (a Map keeps its keys in the order set: the
 * last is the newest), and lets the oldest go while there are more than `capacity`: a small cache of recent answers.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > capacity) map.delete(map.keys().next().value as K);
}

/**
 * The answer kept under `key` (put last, as used again), or the one `make` starts, kept the same way until it fails:
 * a failed answer is dropped, so the next ask makes it again.
 */
export function recentAnswer<K, T>(map: Map<K, Promise<T>>, key: K, capacity: number, make: () => Promise<T>): Promise<T> {
  const kept = map.get(key);
  const answer = kept ?? make();
  if (!kept) answer.catch(() => map.get(key) === answer && map.delete(key));
  keepRecent(map, key, answer, capacity);
  return answer;
}

/** Lets go of every entry of `map` whose key starts with `prefix` (all of them for ''). */
export function forgetStartingWith<V>(map: Map<string, V>, prefix: string): void {
  for (const key of map.keys()) if (key.startsWith(prefix)) map.delete(key);
}
