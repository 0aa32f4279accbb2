import { describe, expect, it } from 'vitest';
import { askOnce, type Heard, ifNewest, newestOnly, NOTHING_HEARD, type Outcome, settle, shownFor } from './latest-answer';

/** A promise the test settles when it wants. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (failure: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const settled = () => new Promise((resolve) => setTimeout(resolve));

describe('askOnce', () => {
  it('hands over the answer, or the failure in words', async () => {
    const outcomes: Record<string, Outcome<string>> = {};
    const words = (failure: unknown) => (failure as Error).message;
    askOnce(
      () => Promise.resolve('rows'),
      (outcome) => (outcomes.answered = outcome),
      words,
    );
    askOnce<string>(
      () => Promise.reject(new Error('the ledger is busy')),
      (outcome) => (outcomes.rejected = outcome),
      words,
    );
    askOnce<string>(
      () => {
        throw new Error('no such report');
      },
      (outcome) => (outcomes.thrown = outcome),
      words,
    );
    await settled();
    expect(outcomes).toEqual({ answered: { data: 'rows' }, rejected: { error: 'the ledger is busy' }, thrown: { error: 'no such report' } });
  });

  it('drops an answer that arrives after it was cancelled: the latest question wins', async () => {
    const first = deferred<string>();
    const second = deferred<string>();
    const outcomes: Outcome<string>[] = [];
    const cancelFirst = askOnce(
      () => first.promise,
      (outcome) => outcomes.push(outcome),
      String,
    );
    cancelFirst(); // the view asked for another input
    askOnce(
      () => second.promise,
      (outcome) => outcomes.push(outcome),
      String,
    );
    second.resolve('new');
    first.resolve('old'); // late, for the older input
    await settled();
    expect(outcomes).toEqual([{ data: 'new' }]);
  });
});

describe('what a view shows', () => {
  const answered: Heard<string> = settle(NOTHING_HEARD, 'a', { data: 'rows of a' });

  it('shows nothing and is loading until the answer for its key arrives', () => {
    expect(shownFor(NOTHING_HEARD, 'a', false)).toEqual({ data: null, error: null, loading: true });
    expect(shownFor(answered, 'a', false)).toEqual({ data: 'rows of a', error: null, loading: false });
  });

  it('never shows the answer for another key as if it were this one', () => {
    expect(shownFor(answered, 'b', false)).toEqual({ data: null, error: null, loading: true });
  });

  it('with keepPrevious, keeps the newest answer while another key is asked and when it fails', () => {
    expect(shownFor(answered, 'b', true)).toEqual({ data: 'rows of a', error: null, loading: true });
    const failed = settle(answered, 'b', { error: 'the ledger is busy' });
    expect(shownFor(failed, 'b', true)).toEqual({ data: 'rows of a', error: 'the ledger is busy', loading: false });
    expect(shownFor(failed, 'b', false)).toEqual({ data: null, error: 'the ledger is busy', loading: false });
  });

  it('keeps showing a failure while the same key is asked again, until the answer comes', () => {
    const failed = settle(NOTHING_HEARD as Heard<string>, 'a', { error: 'offline' });
    expect(shownFor(failed, 'a', false)).toEqual({ data: null, error: 'offline', loading: false });
    expect(shownFor(settle(failed, 'a', { data: 'rows' }), 'a', false)).toEqual({ data: 'rows', error: null, loading: false });
  });

  it('asks nothing without a key', () => {
    expect(shownFor(answered, null, false)).toEqual({ data: null, error: null, loading: false });
  });
});

describe('newest only', () => {
  it("drops an older request's late answer and late failure, and keeps the newest's", async () => {
    const requests = newestOnly();
    const [slow, fast, failing] = [deferred<string>(), deferred<string>(), deferred<string>()];
    const first = ifNewest(requests.begin(), slow.promise);
    const second = ifNewest(requests.begin(), fast.promise);
    fast.resolve('B');
    await expect(second).resolves.toBe('B');
    slow.resolve('A'); // arrives after B: not shown over it
    await expect(first).resolves.toBeUndefined();

    const third = ifNewest(requests.begin(), failing.promise);
    const fourth = requests.begin();
    failing.reject(new Error('A failed late'));
    await expect(third).resolves.toBeUndefined(); // not shown as the error of what is on screen
    expect(fourth.latest()).toBe(true);
    const newest = ifNewest(fourth, Promise.reject(new Error('the newest failed')));
    await expect(newest).rejects.toThrow('the newest failed');
  });
});
