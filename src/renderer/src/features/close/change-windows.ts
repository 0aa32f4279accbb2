import type { ChangeView, ChangeWindow, MonthChange } from '@shared/schemas/month-close';
import { errorMessage } from '@shared/error-message';

/**
 * Reads changes `from` + 1 … `from` + `count` of a comparison as `view` shows them (close:changes). `opening`: the
 * view's first window, asked for in place of the view opened before it (see ChangeWindows.need).
 */
export type ReadWindow = (view: ChangeView, from: number, count: number, opening: boolean) => Promise<ChangeWindow>;

/** One view's changes as read so far: how many it shows, and its windows by number. */
interface ViewRead {
  total: number | null;
  windows: Map<number, MonthChange[]>;
  asked: Set<number>;
  error: string | null;
}

/** How many views' windows are kept (each typed text is one). */
const KEPT_VIEWS = 24;

/** A view as the screen knows it: its words as typed may differ, its order is the main process's business. */
const keyOf = (view: ChangeView) => JSON.stringify([view.kind ?? null, view.text?.trim() ?? '', view.sort, view.direction]);

/**
 * The changes of one comparison, a window of `size` at a time, per view (a kind, words, a column sorted): the
 * screen asks for the rows in sight, and only those cross from the main process. Each window is asked for once;
 * `changed` is called when one arrives or fails. A view that has not answered yet shows nothing of its own: the
 * screen keeps the last view that has (see shownView).
 */
export class ChangeWindows {
  private readonly views = new Map<string, ViewRead>();
  private stopped = false;
  /** The view last asked for as an opening: the one the screen waits for. */
  private latestOpening: string | null = null;

  constructor(
    private readonly read: ReadWindow,
    private readonly size: number,
    private readonly changed: () => void,
    /** The first window of a view, as the comparison's answer brought it, and how many that view shows. */
    first?: { view: ChangeView; changes: MonthChange[]; total: number },
  ) {
    if (first) {
      const read = this.viewRead(first.view);
      read.total = first.total;
      read.windows.set(0, first.changes);
      read.asked.add(0);
    }
  }

  /** How many changes `view` shows (null until its first window has answered). */
  total(view: ChangeView): number | null {
    return this.views.get(keyOf(view))?.total ?? null;
  }

  /** The change at `index` of `view`, if read. */
  at(view: ChangeView, index: number): MonthChange | undefined {
    return this.views.get(keyOf(view))?.windows.get(Math.floor(index / this.size))?.[index % this.size];
  }

  /** Why reading `view` failed last (its windows asked again by retry). */
  error(view: ChangeView): string | null {
    return this.views.get(keyOf(view))?.error ?? null;
  }

  /**
   * Asks for the windows holding rows `first` … `last` of `view` that are neither read nor asked for. A view not yet
   * answered is made in the main process first (its whole order), as an opening: it takes the place of the view
   * opened before it, whose making the main process stops. Typing "storage" makes only the word as typed when the
   * main process gets to it, not all seven views one after another; a view passed over so is asked for again when
   * it is shown again.
   */
  need(view: ChangeView, first: number, last: number): void {
    const read = this.viewRead(view);
    if (read.error) return; // until retry: a failing read is not asked again at every render
    if (read.total === null && !read.asked.has(0)) {
      this.latestOpening = keyOf(view);
      void this.ask(view, read, 0);
      return;
    }
    const end = read.total === null ? first : Math.min(last, read.total - 1);
    for (let window = Math.floor(Math.max(0, first) / this.size); window <= Math.floor(Math.max(0, end) / this.size); window++) {
      if (read.asked.has(window) || (read.total !== null && window * this.size >= read.total)) continue;
      void this.ask(view, read, window);
    }
  }

  /** Reads one window of a view; settles (never fails) once it is in, or its failure is said. */
  private ask(view: ChangeView, read: ViewRead, window: number): Promise<void> {
    read.asked.add(window);
    const opening = read.total === null;
    return this.read(view, window * this.size, this.size, opening).then(
      (answer) => {
        if (this.stopped) return;
        read.total = answer.total;
        read.windows.set(window, answer.changes);
        read.error = null;
        this.changed();
      },
      (failure: unknown) => {
        if (this.stopped) return;
        read.asked.delete(window);
        if (opening && codeOf(failure) === 'cancelled') {
          // Stopped for a view opened after it: nothing to say. The one the screen waits for is asked again (it was
          // stopped before the screen came back to it, or asked for before the request that came later).
          if (keyOf(view) === this.latestOpening) void this.ask(view, read, 0);
          return;
        }
        read.error = errorMessage(failure);
        this.changed();
      },
    );
  }

  /** Forgets why `view` failed, so need asks for its windows again. */
  retry(view: ChangeView): void {
    const read = this.views.get(keyOf(view));
    if (read) read.error = null;
    this.changed();
  }

  /** The comparison is no longer shown: answers still on their way are dropped. */
  stop(): void {
    this.stopped = true;
  }

  private viewRead(view: ChangeView): ViewRead {
    const key = keyOf(view);
    let read = this.views.get(key);
    if (read)
      this.views.delete(key); // used again: put last
    else read = { total: null, windows: new Map(), asked: new Set(), error: null };
    this.views.set(key, read);
    // Every text typed is a view: the oldest are let go (read again if they come back).
    for (const oldest of this.views.keys()) {
      if (this.views.size <= KEPT_VIEWS) break;
      this.views.delete(oldest);
    }
    return read;
  }
}

/** A failure's code, as the bridge gives it (RequestError), or null. */
const codeOf = (failure: unknown) => (typeof failure === 'object' && failure !== null && 'code' in failure ? failure.code : null);
