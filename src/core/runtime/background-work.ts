/**
 * Work a feature starts ahead of the user and nobody awaits (a month checked, shared or its first rows made as it
 * is fetched or opened): kept while it runs, so whoever closes the ledger can wait for it first. The work handles
 * its own failure; a wait never throws.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();

  /** Keeps `work` until it settles. */
  add(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /** Resolves once everything started so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
