import { z } from 'zod';
import { ReportPeriod, StoredBillingEntry } from './billing-report';

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
});
export type ReportMeta = z.infer<typeof ReportMeta>;

export const SavedReport = z.object({
  meta: ReportMeta,
  entries: z.array(StoredBillingEntry),
});
export type SavedReport = z.infer<typeof SavedReport>;

/** A listing entry: a readable report, or a damaged one with the reason (the others stay usable). */
export const ReportListing = z.discriminatedUnion('state', [
  z.object({ state: z.literal('ok'), meta: ReportMeta }),
  z.object({ state: z.literal('damaged'), id: z.string(), file: z.string(), reason: z.string() }),
]);
export type ReportListing = z.infer<typeof ReportListing>;

export const ReportJobState = z.enum(['waiting', 'polling', 'retrying', 'saving', 'done', 'failed', 'cancelled']);

/** A report request being generated; persisted before its first poll so it survives a restart. */
export const ReportJob = z.object({
  id: z.string().uuid(),
  profileId: z.string(),
  profileName: z.string(),
  period: ReportPeriod,
  location: z.string().url(),
  startedAt: z.string(),
  polls: z.number().int().nonnegative(),
  lastStatus: z.number().int().nullable(),
  nextPollAt: z.string().nullable(),
  /** Set when the job stopped and needs the user: a status the client does not know, credentials refused… */
  error: z.string().nullable(),
});
export type ReportJob = z.infer<typeof ReportJob>;

export const ReportProgress = z.object({
  jobId: z.string(),
  profileId: z.string(),
  period: ReportPeriod,
  state: ReportJobState,
  lastStatus: z.number().int().nullable(),
  polls: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  nextPollAt: z.string().nullable(),
  message: z.string().nullable(),
  reportId: z.string().nullable(),
});
export type ReportProgress = z.infer<typeof ReportProgress>;
