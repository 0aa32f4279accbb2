/**
 * Puts `value` under `key` as the most recently used entry of `map` (a Map keeps its keys in the order set: the
 * last is the newest), and lets the oldest go while there are more than `capacity`: a small cache of recent answers.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > capacity) map.delete(map.keys().next().value as K);
}

/** keepRecent for an answer still on its way: a failed one is dropped, so the next ask makes it again. */
export function keepRecentAnswer<K, T>(map: Map<K, Promise<T>>, key: K, answer: Promise<T>, capacity: number): void {
  answer.catch(() => map.delete(key));
  keepRecent(map, key, answer, capacity);
}
