import { z } from 'zod';
import { formatDuration } from './report-progress';

/**
 * A connection test under way, told at each step: signing in, then asking for the organization list — and, when
 * an attempt fails, the retry it waits for. A slow or failing service can keep a test going for close to a
 * minute, so the user sees which step it is on and for how long, never a bare "Testing…".
 */
export const ConnectionTestProgress = z.object({
  profileId: z.string(),
  step: z.enum(['signing-in', 'listing']),
  startedAt: z.string(),
  /** When the step's last attempt failed: the attempt it waits to make, of how many, when, and why the last one failed. */
  retry: z.object({ attempt: z.number().int().positive(), attempts: z.number().int().positive(), at: z.string(), reason: z.string() }).optional(),
});
export type ConnectionTestProgress = z.infer<typeof ConnectionTestProgress>;

const STEP_WORDS: Record<ConnectionTestProgress['step'], string> = { 'signing-in': 'Signing in', listing: 'Signed in — getting the organization list' };

/** "Signed in — getting the organization list (4 s)", "Signing in — trying again in 8 s (attempt 3 of 4; 14 s so far)". */
export function describeConnectionTest(progress: ConnectionTestProgress, now: number): string {
  const elapsed = formatDuration(now - Date.parse(progress.startedAt));
  const { retry } = progress;
  if (!retry) return `${STEP_WORDS[progress.step]} (${elapsed})`;
  return `${STEP_WORDS[progress.step]} — trying again in ${formatDuration(Date.parse(retry.at) - now)} (attempt ${retry.attempt} of ${retry.attempts}; ${elapsed} so far)`;
}
