/**
 * The service client's one notion of a timeout: silence, not duration. Shared by the retry loop (waiting for
 * headers) and body reading (waiting for the next chunk), so a slow but steady answer is never cut off.
 */

/** Aborts a request after `ms` without progress (no headers yet, or no new chunk of the body). */
export class IdleTimeout {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number) {
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new DOMException('No answer in time', 'TimeoutError')), this.ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
