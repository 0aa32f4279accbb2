/**
 * Passes values on one at a time: a value offered while the previous one is still being answered waits, and only
 * the newest waiting one goes once it is. Typed filter text reaches the main process at once (no typing pause to
 * sit out), and fast typing never queues a pass over the month per character.
 */
export class LatestWhenIdle<T> {
  private busy = false;
  private waiting: { value: T } | null = null;

  constructor(private readonly apply: (value: T) => void) {}

  /** Applies `value` now if nothing is being answered, else keeps it as the one to apply next. */
  offer(value: T): void {
    if (this.busy) {
      this.waiting = { value };
      return;
    }
    this.now(value);
  }

  /** Applies `value` now whatever is being answered (a choice, a cleared filter): a waiting value is dropped. */
  now(value: T): void {
    this.waiting = null;
    this.busy = true;
    this.apply(value);
  }

  /** The last applied value was answered (or failed): the newest waiting one, if any, goes now. */
  answered(): void {
    this.busy = false;
    const waiting = this.waiting;
    if (waiting) this.now(waiting.value);
  }

  /** Forgets a waiting value (the viewer closed). */
  dispose(): void {
    this.waiting = null;
  }
}
