import { z } from 'zod';
import { ReportPeriod } from './billing-report';

export const REPORT_SCHEMA_VERSION = 1;

export const CurrencyTotal = z.object({
  /** "SEK", or "USD→SEK" for services bought in one currency and sold in another (never added together). */
  currency: z.string(),
  cost: z.string(),
  sales: z.string(),
  /** Empty when cost and sales are in different currencies. */
  margin: z.string(),
});
export type CurrencyTotal = z.infer<typeof CurrencyTotal>;

export const ReportMeta = z.object({
  id: z.string().uuid(),
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  name: z.string().min(1).max(120),
  profileId: z.string(),
  profileName: z.string(),
  /** The service's origin, so a saved report says where it came from. */
  host: z.string(),
  period: ReportPeriod,
  fetchedAt: z.string(),
  counts: z.object({
    billingEntries: z.number().int().nonnegative(),
    organizations: z.number().int().nonnegative(),
    services: z.number().int().nonnegative(),
    subscriptions: z.number().int().nonnegative(),
    lines: z.number().int().nonnegative(),
  }),
  totals: z.array(CurrencyTotal),
  /** Set for a report imported from a shared file: that file's name (the list marks it "imported from …"). */
  importedFrom: z.string().max(300).optional(),
});
export type ReportMeta = z.infer<typeof ReportMeta>;

/** A listing entry: a readable report, or a damaged one with the reason (the others stay usable). */
export const ReportListing = z.discriminatedUnion('state', [
  z.object({ state: z.literal('ok'), meta: ReportMeta }),
  z.object({ state: z.literal('damaged'), id: z.string(), file: z.string(), reason: z.string() }),
]);
export type ReportListing = z.infer<typeof ReportListing>;

export const ReportJobState = z.enum(['waiting', 'polling', 'retrying', 'saving', 'done', 'failed', 'cancelled']);
export type ReportJobState = z.infer<typeof ReportJobState>;

/**
 * A report request being generated: persisted before its first poll so it survives a restart, and sent as it is
 * in every progress event (one shape on disk, over IPC and in the CLI).
 */
export const ReportJob = z.object({
  id: z.string().uuid(),
  profileId: z.string(),
  profileName: z.string(),
  period: ReportPeriod,
  location: z.string().url(),
  startedAt: z.string(),
  /** When the job last changed (a poll, a retry, a state change). */
  updatedAt: z.string(),
  state: ReportJobState,
  polls: z.number().int().nonnegative(),
  /** The status value the service gave last (0 = generating), null before the first answer. */
  lastStatus: z.number().int().nullable(),
  nextPollAt: z.string().nullable(),
  /** What the user should know now: why it is retrying, or why it stopped (state "failed"). */
  message: z.string().nullable(),
  /** Retrying because the service asked to slow down (HTTP 429), not because it did not answer. */
  busy: z.boolean().optional(),
  /** The saved report, once the state is "done". */
  reportId: z.string().nullable(),
  /**
   * While the report arrives (sent in events, not kept): bytes downloaded so far, of `totalBytes` when the service said
   * its length; then billing lines saved so far, and `percent` of the received file read (the line count is not known ahead).
   */
  transfer: z
    .object({
      bytes: z.number().int().nonnegative().optional(),
      totalBytes: z.number().int().positive().optional(),
      lines: z.number().int().nonnegative().optional(),
      percent: z.number().int().min(0).max(100).optional(),
    })
    .optional(),
});
export type ReportJob = z.infer<typeof ReportJob>;

/** A job as the first version saved it (no state; `error` set when it stopped): read once, then saved as a ReportJob. */
export const ReportJobV1 = ReportJob.omit({ updatedAt: true, state: true, message: true, reportId: true })
  .extend({ error: z.string().nullable() })
  .transform(({ error, ...job }): ReportJob => ({
    ...job,
    updatedAt: job.startedAt,
    state: error === null ? 'waiting' : 'failed',
    message: error,
    reportId: null,
  }));
