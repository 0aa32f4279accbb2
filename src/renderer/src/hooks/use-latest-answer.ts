import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChannelInput, ChannelName, ChannelOutput } from '@shared/contract';
import { call, errorMessage } from '@renderer/bridge';
import { askOnce, type Heard, NOTHING_HEARD, settle, type Shown, shownFor } from './latest-answer';

export interface LatestAnswer<T> extends Shown<T> {
  /** Asks the same input again (after a failure). */
  retry(): void;
}

export interface LatestAnswerOptions {
  /** Keep showing the newest answer while another input is asked (and when it fails), e.g. totals while a filter changes. */
  keepPrevious?: boolean;
}

/**
 * The answer for what a view asks about now, however the answers for what it asked before arrive: "latest answer
 * wins". `key` names the input (null: nothing to ask yet); `load` is called whenever the key changes or on retry,
 * and an answer for an older key, or for a view that has gone, is dropped.
 */
export function useLatestAnswer<T>(key: string | null, load: () => Promise<T>, { keepPrevious = false }: LatestAnswerOptions = {}): LatestAnswer<T> {
  const [heard, setHeard] = useState<Heard<T>>(NOTHING_HEARD);
  const [attempt, setAttempt] = useState(0);
  // The newest `load` is the one for the newest key: only the key says when to ask.
  const latestLoad = useRef(load);
  useEffect(() => {
    latestLoad.current = load;
  });
  useEffect(() => {
    if (key === null) return undefined;
    return askOnce(latestLoad.current, (outcome) => setHeard((current) => settle(current, key, outcome)), errorMessage);
  }, [key, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...shownFor(heard, key, keepPrevious), retry };
}

/** useLatestAnswer for one channel of the contract; `input` null: nothing to ask yet. Equal inputs are one key. */
export function useChannelAnswer<C extends ChannelName>(
  channel: C,
  input: ChannelInput<C> | null,
  options?: LatestAnswerOptions,
): LatestAnswer<ChannelOutput<C>> {
  const key = input === null ? null : JSON.stringify([channel, input]);
  return useLatestAnswer(key, () => call(channel, input as ChannelInput<C>), options);
}
