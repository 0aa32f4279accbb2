import { AppError } from '@shared/errors';

/**
 * Work of which only the newest asked for matters (a list's view, typed over by the next keystroke): asking for one
 * stops the one under way (its signal aborts) and passes over one still waiting, which fail as 'cancelled'. One runs
 * at a time, so the newest never shares the machine with the one it replaced.
 */
export class NewestWins {
  private last: { controller: AbortController; settled: Promise<unknown> } | null = null;

  run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const before = this.last;
    before?.controller.abort();
    const controller = new AbortController();
    // The one replaced ends soon once stopped (work that heeds its signal): this starts when it has.
    const answer = (before?.settled ?? Promise.resolve()).then(() => {
      if (controller.signal.aborted) throw replaced();
      return work(controller.signal);
    });
    this.last = { controller, settled: answer.catch(() => undefined) };
    return answer;
  }
}

const replaced = () => new AppError('cancelled', 'A newer request took the place of this one before it started.');
