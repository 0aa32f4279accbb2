import { z } from 'zod';

/**
 * Faults the twin can be told to inject, for tests and for trying the app's error handling by hand.
 * Each fault matches requests by method and path fragment and fires `times` times (default once).
 */
export const Fault = z.intersection(
  z.object({
    method: z.string().optional(),
    /** Case-insensitive fragment of the request path, e.g. "Organizations" or "bulkconsumptions". */
    path: z.string().optional(),
    times: z.number().int().positive().default(1),
  }),
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('status'), status: z.number().int().min(400).max(599), retryAfterSeconds: z.number().nonnegative().optional() }),
    /** Close the connection without answering, before the request is processed. */
    z.object({ kind: z.literal('drop') }),
    /** Process the request, then close the connection without answering (the client cannot know the outcome). */
    z.object({ kind: z.literal('drop-after-processing') }),
    z.object({ kind: z.literal('slow'), delayMs: z.number().int().nonnegative() }),
    /** Answer 200 with a body that is not JSON. */
    z.object({ kind: z.literal('malformed') }),
    /** The next report poll answers this status value instead of the real one. */
    z.object({ kind: z.literal('report-status'), status: z.union([z.number(), z.string()]) }),
  ]),
);
export type Fault = z.output<typeof Fault>;
export type FaultInput = z.input<typeof Fault>;

/** What `POST /__twin/faults` takes: a fault, or one of the two plain commands. */
export const TwinControl = z.union([z.object({ kind: z.literal('expire-tokens') }), z.object({ kind: z.literal('clear') }), Fault]);

export class FaultQueue {
  private faults: Fault[] = [];

  add(fault: FaultInput): void {
    this.faults.push(Fault.parse(fault));
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault that matches this request, used up by one. */
  take(method: string, path: string, kinds?: Fault['kind'][]): Fault | undefined {
    const index = this.faults.findIndex(
      (fault) =>
        (!fault.method || fault.method.toUpperCase() === method) &&
        (!fault.path || path.toLowerCase().includes(fault.path.toLowerCase())) &&
        (!kinds || kinds.includes(fault.kind)),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index] as Fault;
    if (--fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  get pending(): number {
    return this.faults.length;
  }
}

/** What `POST /__twin/restate` takes: the month whose reports change from now on. */
export const RestateRequest = z.strictObject({ period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'period must be a month, YYYY-MM') });
