/**
 * The poll loops a workflow has running, one per job id: started once, stoppable one by one or all together, and
 * awaitable (tests, the CLI and shutdown wait for them to settle).
 */
export class RunningLoops {
  private readonly loops = new Map<string, { controller: AbortController; done: Promise<void> }>();

  /** Starts `loop` for `id` unless one is already running. */
  start(id: string, loop: (signal: AbortSignal) => Promise<void>): void {
    if (this.loops.has(id)) return;
    const controller = new AbortController();
    const done = loop(controller.signal).finally(() => this.loops.delete(id));
    this.loops.set(id, { controller, done });
  }

  /** Aborts one loop and waits until it has stopped. */
  async stop(id: string): Promise<void> {
    const loop = this.loops.get(id);
    loop?.controller.abort();
    await loop?.done;
  }

  async stopAll(): Promise<void> {
    for (const loop of this.loops.values()) loop.controller.abort();
    await this.settled();
  }

  /** Waits until the given loops (or all) have ended on their own or been stopped. */
  async settled(ids?: string[]): Promise<void> {
    await Promise.all([...this.loops.entries()].filter(([id]) => !ids || ids.includes(id)).map(([, loop]) => loop.done));
  }
}
