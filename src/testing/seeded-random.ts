import { SeededRandom } from '@twin/random';

/** A number in [0, 1) at each call, the same sequence for the same seed (the twin's generator): many cases, the same on every run. */
export function seededRandom(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}
