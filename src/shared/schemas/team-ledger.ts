import { z } from 'zod';

/** A fetch of a month on the team ledger, and whether this workstation holds its lines. */
export const TeamFetch = z.object({
  host: z.string(),
  resellerId: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  contentHash: z.string(),
  lines: z.number().int().nonnegative(),
  fetchedAt: z.string(),
  storedBy: z.string(),
  workstation: z.string(),
  storedAt: z.string(),
  state: z.enum(['draft', 'prepared', 'approved']),
  /** The fetch a sign-off stands on, or the month before it that the checks compared with. */
  signed: z.boolean(),
  localReportId: z.string().nullable(),
});
export type TeamFetch = z.infer<typeof TeamFetch>;

/**
 * The team ledger as Settings shows it: none connected (the workstation's ledger keeps the close), or connected —
 * who you are there and what you may do, or why the server does not answer now. Never the password.
 */
export const TeamLedgerView = z.discriminatedUnion('connected', [
  z.object({ connected: z.literal(false) }),
  z.object({
    connected: z.literal(true),
    address: z.object({ host: z.string(), port: z.number().int(), database: z.string(), user: z.string(), tls: z.enum(['verify-full', 'none']) }),
    /** Null while the server does not answer (`problem` says why). */
    signedIn: z.object({ user: z.string(), roles: z.array(z.string()), server: z.string(), schemaVersion: z.number().int().nullable() }).nullable(),
    problem: z.string().nullable(),
    months: z.array(TeamFetch),
  }),
]);
export type TeamLedgerView = z.infer<typeof TeamLedgerView>;

export const TeamConnectInput = z.object({
  url: z.string().trim().min(1, 'is required').max(2000),
  password: z.string().min(1, 'is required').max(1000),
});

/** What moving a workstation's months into the team ledger did: moved, there already, and what was left and why. */
export const TeamMoveIn = z.object({
  fetchesMoved: z.number().int(),
  fetchesThere: z.number().int(),
  reviewsMoved: z.number().int(),
  reviewsThere: z.number().int(),
  left: z.array(z.string()),
});
export type TeamMoveIn = z.infer<typeof TeamMoveIn>;
