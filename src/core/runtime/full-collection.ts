import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection now, where a large piece of work has just let go of most of what it held: V8 sizes its
 * next collection by the heap it last found alive and knows nothing of DuckDB's memory beside it, so half a gigabyte
 * of dead objects can otherwise stay until the work after it has added as much again. V8's `gc` is made reachable
 * once (the flag takes effect in a context made after it is set); a collection of a few hundred MB takes a fraction
 * of a second.
 */
export function fullCollection(): void {
  try {
    if (!collect) {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
    collect();
  } catch {
    // A V8 that refuses the flag collects when it would have: memory spent, never the work refused.
  }
}
