import { z } from 'zod';

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

/** A row as read from a file or typed into the grid: text per field, and where it came from. */
export const InputRow = z.object({
  /** 1-based row number in the file (the header is row 1), or in the grid. */
  row: z.number().int().positive(),
  ...(Object.fromEntries(CONSUMPTION_FIELDS.map((field) => [field, z.string()])) as Record<ConsumptionField, z.ZodString>),
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
  /** Columns that were not recognised and are ignored. */
  ignoredColumns: z.array(z.string()),
});
export type ParsedFile = z.infer<typeof ParsedFile>;

/** A failed record (spec §2.5), tolerant of absent optional fields. */
export const FailedRecord = z.object({
  errorMessage: z.string().nullish().transform((value) => value ?? 'No reason given by the service'),
  consumptionId: z.string().nullish().transform((value) => value ?? null),
  subscriptionId: z.string().nullish().transform((value) => value ?? ''),
  isAddon: z.boolean().nullish().transform((value) => value ?? false),
  addonId: z.string().nullish().transform((value) => value ?? null),
  quantity: z.number().nullish().transform((value) => value ?? null),
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

export const SubmissionSummary = Submission.omit({ rows: true, records: true, failures: true }).extend({
  recordCount: z.number().int(),
  failureCount: z.number().int(),
});
export type SubmissionSummary = z.infer<typeof SubmissionSummary>;
