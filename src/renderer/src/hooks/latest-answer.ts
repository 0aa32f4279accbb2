/*
 * "Latest answer wins", the part without React: what a view has heard from the main process for the inputs it
 * asked about, and what it shows for the input it asks about now. useLatestAnswer (use-latest-answer.ts) keeps one
 * of these per call site.
 */

/** The newest answer or failure heard, for which input (its key), and the newest answer of any input. */
export interface Heard<T> {
  key: string | null;
  data: T | null;
  error: string | null;
  /** The newest answer for any input: what a view keeps showing while the next one is asked. */
  kept: T | null;
}

export const NOTHING_HEARD: Heard<never> = { key: null, data: null, error: null, kept: null };

export type Outcome<T> = { data: T } | { error: string };

/** `heard` after the answer (or the failure) for `key`. */
export function settle<T>(heard: Heard<T>, key: string, outcome: Outcome<T>): Heard<T> {
  return 'data' in outcome ? { key, data: outcome.data, error: null, kept: outcome.data } : { key, data: null, error: outcome.error, kept: heard.kept };
}

export interface Shown<T> {
  /** The answer for the input asked now; with `keepPrevious`, the newest answer of any input until it comes. */
  data: T | null;
  /** Why the input asked now could not be answered (null while it is asked again). */
  error: string | null;
  /** Asked and not answered yet (the first time; a retry shows the failure until its answer comes). */
  loading: boolean;
}

/** What a view shows for `key` (null: nothing to ask) from what it has heard. */
export function shownFor<T>(heard: Heard<T>, key: string | null, keepPrevious: boolean): Shown<T> {
  const mine = key !== null && heard.key === key;
  return {
    data: keepPrevious ? heard.kept : mine ? heard.data : null,
    error: mine ? heard.error : null,
    loading: key !== null && !mine,
  };
}

/**
 * Asks once and hands the outcome to `onSettled`, unless the returned cancel ran first: a view cancels when it asks
 * for another input (or goes), so an answer that arrives late for an older input is never heard.
 */
export function askOnce<T>(load: () => Promise<T>, onSettled: (outcome: Outcome<T>) => void, describe: (failure: unknown) => string): () => void {
  let current = true;
  // A load that throws before it returns a promise fails the same way as one that rejects.
  new Promise<T>((resolve) => resolve(load())).then(
    (data) => current && onSettled({ data }),
    (failure: unknown) => current && onSettled({ error: describe(failure) }),
  );
  return () => {
    current = false;
  };
}

/**
 * Requests of which only the newest counts, for an action that sets what a screen shows (open a report, list a
 * profile's organizations): `begin` at each request, and its `latest()` says whether a newer one began since — an
 * older answer, or failure, arriving late is then dropped rather than shown over the newer one.
 */
export function newestOnly(): { begin(): { latest(): boolean } } {
  let newest = 0;
  return {
    begin() {
      const mine = ++newest;
      return { latest: () => mine === newest };
    },
  };
}

/** `work`'s answer for the newest request only: an older one's answer is dropped (undefined), its failure too. */
export async function ifNewest<T>(request: { latest(): boolean }, work: Promise<T>): Promise<T | undefined> {
  try {
    const answer = await work;
    return request.latest() ? answer : undefined;
  } catch (failure) {
    if (request.latest()) throw failure;
    return undefined;
  }
}
