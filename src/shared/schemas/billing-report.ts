import { z } from 'zod';
import { IsoDate } from './common';

/**
 * The billing report's request and status as the interface gives them (spec §2.3). The report's own content is read
 * and checked by the ingest, part by part, as it streams in (core/reports/report-ingest.ts): that is its schema.
 */

/** 0 = running, 5 = complete; other values exist but their meaning is "not shown". */
export const REPORT_RUNNING = 0;
export const REPORT_COMPLETE = 5;

export const ReportPeriod = z
  .object({ startDate: IsoDate, endDate: IsoDate })
  .refine((period) => period.startDate <= period.endDate, { message: 'must not be before the start date', path: ['endDate'] });
export type ReportPeriod = z.infer<typeof ReportPeriod>;
