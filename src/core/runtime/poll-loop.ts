import { AppError } from '@shared/errors';
import { isTransient } from '../service-api/retry';
import type { Clock } from '../ports/ports';
import { errorMessage } from '@shared/error-message';

/** What a poll loop needs of a workflow record (a report job, a consumption task): which it is and when to ask next. */
export interface Scheduled {
  id: string;
  nextPollAt: string | null;
}

/** The workflow-specific half of a poll loop; the loop itself (waiting, transient failures, stopping) is shared. */
export interface PollWorkflow<J extends Scheduled> {
  /** Asks the service once and saves what it said; `done` ends the loop. */
  poll(job: J, signal: AbortSignal): Promise<{ job: J; done: boolean }>;
  /** The service could not be asked (network, 5xx, 429): keep the record and schedule the next try. */
  keep(job: J, error: AppError): Promise<J>;
  /** Anything else ends the loop: the record stops and waits for the user. */
  stop(job: J, error: AppError): Promise<void>;
}

/**
 * The poll loops of one workflow, one per record: started once, stoppable one by one or all together, and
 * awaitable (tests, the CLI and shutdown wait for them to settle). A stopped loop leaves its record as it was,
 * so it resumes after a restart.
 */
export class PollLoops<J extends Scheduled> {
  private readonly loops = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(
    private readonly clock: Clock,
    private readonly workflow: PollWorkflow<J>,
  ) {}

  /** Starts polling `job` unless a loop for it is already running. */
  start(job: J): void {
    if (this.loops.has(job.id)) return;
    const controller = new AbortController();
    const done = this.loop(job, controller.signal).finally(() => this.loops.delete(job.id));
    this.loops.set(job.id, { controller, done });
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

  private async loop(initial: J, signal: AbortSignal): Promise<void> {
    let job = initial;
    try {
      for (;;) {
        const wait = job.nextPollAt ? Date.parse(job.nextPollAt) - this.clock.now() : 0;
        if (wait > 0) await this.clock.sleep(wait, signal);
        try {
          const step = await this.workflow.poll(job, signal);
          job = step.job;
          if (step.done) return;
        } catch (error) {
          if (signal.aborted || !isTransient(error)) throw error;
          job = await this.workflow.keep(job, error);
        }
      }
    } catch (error) {
      if (signal.aborted || (error instanceof AppError && error.code === 'cancelled')) return;
      const stopped = error instanceof AppError ? error : new AppError('internal', `Closebook could not carry on (${errorMessage(error)}).`);
      await this.workflow.stop(job, stopped).catch(() => undefined);
    }
  }
}
