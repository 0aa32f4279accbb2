import { describe, expect, it } from 'vitest';
import { AppError } from '@shared/errors';
import { connectionStateOf } from './connections';

describe('what a call says about the service', () => {
  it('reads a refusal of bad input as an answer, and faults of its own as a service error', () => {
    const state = (code: AppError['code']) => connectionStateOf(new AppError(code, code)).state;
    expect(connectionStateOf(null)).toEqual({ state: 'online' });
    expect([state('network'), state('timeout')]).toEqual(['offline', 'offline']);
    expect(state('auth')).toBe('auth-failed');
    // A 5xx, a 429, an answer it cannot read, or a status or redirect it does not explain (a base URL gone wrong).
    expect(['service', 'rate-limited', 'bad-response', 'refused'].map((code) => state(code as AppError['code']))).toEqual(Array(4).fill('service-error'));
    expect([state('validation'), state('not-found'), state('conflict')]).toEqual(['online', 'online', 'online']);
  });
});
