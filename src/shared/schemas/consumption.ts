import { z } from 'zod';
import { ReportPeriod } from './billing-report';

/**
 * THE list of consumption fields (spec §2.4), in template order, each with the plain header people see: in the
 * template, the grid's columns, and messages about a row.
 */
export const PLAIN_HEADERS = {
  subscriptionId: 'Subscription ID',
  isAddon: 'Is add-on',
  addonId: 'Add-on ID',
  quantity: 'Quantity',
  consumptionId: 'Consumption ID',
} as const;
export type ConsumptionField = keyof typeof PLAIN_HEADERS;
export const CONSUMPTION_FIELDS = Object.keys(PLAIN_HEADERS) as ConsumptionField[];

/** At most this many of the user's own columns are kept beside a batch (the rest are named as ignored). */
export const MAX_EXTRA_COLUMNS = 20;

/**
 * The largest consumption file the app takes (sent to the main process as base64: 64 MB of it). A real month of 50,000
 * rows with the user's own columns is a few megabytes of CSV; a workbook is read within bounds of its own.
 */
export const MAX_CONSUMPTION_FILE_BYTES = 48 * 1024 * 1024;

/** A row as read from a file or typed into the grid: text per field, and where it came from. */
export const InputRow = z.object({
  /** 1-based row number in the file (the header is row 1), or in the grid. */
  row: z.number().int().positive(),
  ...(Object.fromEntries(CONSUMPTION_FIELDS.map((field) => [field, z.string()])) as Record<ConsumptionField, z.ZodString>),
  /** The user's own columns (a "Customer", a "Cost centre"), in the order of the batch's `extraColumns`: kept and shown, never sent. */
  extra: z.array(z.string()).max(MAX_EXTRA_COLUMNS).optional(),
});
export type InputRow = z.infer<typeof InputRow>;

/** What the service receives (spec §2.4). */
export const ConsumptionRecord = z.object({
  consumptionId: z.string().optional(),
  subscriptionId: z.string(),
  isAddon: z.boolean(),
  addonId: z.string().optional(),
  quantity: z.number(),
});
export type ConsumptionRecord = z.infer<typeof ConsumptionRecord>;

export const RowProblem = z.object({ row: z.number().int(), field: z.string(), message: z.string() });
export type RowProblem = z.infer<typeof RowProblem>;

export const ParsedFile = z.object({
  fileName: z.string(),
  sheets: z.array(z.string()),
  sheet: z.string().nullable(),
  rows: z.array(InputRow),
  /** Problems with the file as a whole: missing columns, unknown headers, unreadable content. */
  problems: z.array(z.string()),
  /** The user's own columns, kept beside each row (`InputRow.extra`) and shown, but never sent to the service. */
  extraColumns: z.array(z.string()),
  /** Columns past `MAX_EXTRA_COLUMNS`, not kept. */
  ignoredColumns: z.array(z.string()),
});
export type ParsedFile = z.infer<typeof ParsedFile>;

/** A failed record (spec §2.5), tolerant of absent optional fields. */
export const FailedRecord = z.object({
  errorMessage: z
    .string()
    .nullish()
    .transform((value) => value ?? 'No reason given by the service'),
  consumptionId: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  subscriptionId: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  isAddon: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  addonId: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  quantity: z
    .number()
    .nullish()
    .transform((value) => value ?? null),
});
export type FailedRecord = z.output<typeof FailedRecord>;

/** A failure joined back to the row it came from; `row` is null when no row matches. */
export const RowFailure = z.object({
  row: z.number().int().nullable(),
  errorMessage: z.string(),
  subscriptionId: z.string(),
  addonId: z.string().nullable(),
  quantity: z.number().nullable(),
});
export type RowFailure = z.infer<typeof RowFailure>;

export const SubmissionState = z.enum(['sending', 'outcome-unknown', 'Queued', 'Processing', 'Successful', 'Failed', 'error']);
export type SubmissionState = z.infer<typeof SubmissionState>;

/** One bulk submission: saved before its first poll, kept as history. */
export const Submission = z.object({
  id: z.string().uuid(),
  profileId: z.string(),
  profileName: z.string(),
  fileName: z.string(),
  /** SHA-256 of the records as sent, to spot a batch sent before. */
  contentHash: z.string(),
  /** The period the usage is for, as the user gave the batch (the month close compares it with what was billed); absent when not given. */
  period: ReportPeriod.optional(),
  /** Headers of the user's own columns kept with the rows (shown, and written back in the failed rows; never sent). */
  extraColumns: z.array(z.string()).max(MAX_EXTRA_COLUMNS).optional(),
  rows: z.array(InputRow),
  records: z.array(ConsumptionRecord),
  taskId: z.string().nullable(),
  statusUrl: z.string().nullable(),
  state: SubmissionState,
  message: z.string().nullable(),
  failures: z.array(RowFailure),
  createdAt: z.string(),
  updatedAt: z.string(),
  polls: z.number().int().nonnegative(),
  nextPollAt: z.string().nullable(),
});
export type Submission = z.infer<typeof Submission>;

export const SubmissionSummary = Submission.omit({ rows: true, records: true, failures: true, extraColumns: true }).extend({
  recordCount: z.number().int(),
  failureCount: z.number().int(),
  /**
   * The service and reseller a batch shared on the team ledger went to: matched to a month by them, as a colleague's
   * profile id means nothing on this workstation. Absent for this workstation's own batches (matched by profile).
   */
  service: z.object({ host: z.string(), resellerId: z.string() }).optional(),
});
export type SubmissionSummary = z.infer<typeof SubmissionSummary>;

/** A subscription as the newest saved report of the profile that has it names it (the names beside a consumption row). */
export const SubscriptionName = z.object({
  subscriptionId: z.string(),
  organization: z.string(),
  customerNumber: z.string(),
  /** The subscription's own name (the report's item name). */
  subscription: z.string(),
  service: z.string(),
  /** The products it was billed for in that report, a few at most. */
  products: z.array(z.string()),
  /** The period of the report the names come from. */
  period: ReportPeriod,
  /** The months the saved reports bill it in (the newest fetch of each). */
  months: z.number().int().nonnegative(),
  /** Billed as metered: its quantity differs between those months (a licence's stays the same). */
  metered: z.boolean(),
});
export type SubscriptionName = z.infer<typeof SubscriptionName>;

/** Names for the ids asked about; an id not in `names` is not in any saved report of the profile. */
export const SubscriptionNames = z.object({
  /** Saved reports of the profile's service and reseller: 0 means no id can be found yet. */
  savedReports: z.number().int().nonnegative(),
  names: z.array(SubscriptionName),
});
export type SubscriptionNames = z.infer<typeof SubscriptionNames>;
