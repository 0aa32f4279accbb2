import { z } from 'zod';
import { IsoDate } from './common';

/**
 * The billing report as the service sends it (spec §2.3), parsed strictly where it matters (money, ids, nesting)
 * and tolerantly where the spec allows variation (status as number or string, result bare or in an array).
 * Money stays a decimal string: it is summed exactly later, never as a float.
 */
export const DecimalString = z
  .union([z.string(), z.number()])
  .transform((value) => (typeof value === 'number' ? String(value) : value.trim()))
  .refine((value) => /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value), 'must be a decimal number like 1234.56');

/** Quantities are numbers in the spec; a numeric string is accepted too. */
const Quantity = z.union([z.number(), z.string().trim().regex(/^[+-]?\d+(\.\d+)?$/).transform(Number)]).pipe(z.number().finite());

const text = z.string().nullish().transform((value) => value ?? '');

export const BillingLine = z.object({
  productName: text,
  productId: text,
  itemCode: text,
  quantity: Quantity,
  resellerPricePerUnit: DecimalString,
  customerPricePerUnit: DecimalString,
  totalResellerPrice: DecimalString,
  totalCustomerPrice: DecimalString,
  itemDetails: text,
});
export type BillingLine = z.infer<typeof BillingLine>;

export const BillingItem = z.object({
  itemName: text,
  subscriptionId: text,
  poNumber: text,
  quantity: Quantity,
  totalResellerPrice: DecimalString,
  totalCustomerPrice: DecimalString,
  resellerPricePerUnit: DecimalString.nullish(),
  customerPricePerUnit: DecimalString.nullish(),
  products: z.array(BillingLine),
});
export type BillingItem = z.infer<typeof BillingItem>;

const CurrencyCode = z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 currency code');

export const BillingService = z.object({
  serviceName: text,
  serviceId: text,
  totalResellerPrice: DecimalString,
  totalCustomerPrice: DecimalString,
  currencyCode: CurrencyCode,
  /** Usually equal to currencyCode; absent is read as equal. */
  customerCurrencyCode: CurrencyCode.nullish(),
  items: z.array(BillingItem),
}).transform((service) => ({ ...service, customerCurrencyCode: service.customerCurrencyCode ?? service.currencyCode }));
export type BillingService = z.infer<typeof BillingService>;

export const BillingOrganization = z.object({
  name: text,
  customerNumber: text,
  orgId: text,
  organizationGroups: z.array(z.string()).nullish().transform((groups) => groups ?? []),
  services: z.array(BillingService),
});
export type BillingOrganization = z.infer<typeof BillingOrganization>;

export const BillingEntry = z.object({
  billingDate: z.string(),
  billingContentStartDate: text,
  billingContentEndDate: text,
  organizations: z.array(BillingOrganization),
});
export type BillingEntry = z.infer<typeof BillingEntry>;

/** 0 = running, 5 = complete; other values exist but their meaning is "not shown". */
export const REPORT_RUNNING = 0;
export const REPORT_COMPLETE = 5;

const Status = z.union([z.number().int(), z.string().trim().regex(/^-?\d+$/, 'must be a whole number').transform(Number)]);

const ReportPollBody = z.object({
  status: Status,
  data: z.array(z.unknown()).nullish(),
});

/**
 * One poll's answer. The status is read first; the data is parsed only when the status says complete, so an
 * odd payload of a still-running report does not fail the job.
 */
export const ReportPoll = z
  .union([ReportPollBody, z.array(ReportPollBody).length(1, 'must hold exactly one report').transform((array) => array[0] as z.infer<typeof ReportPollBody>)])
  .transform((body, context) => {
    if (body.status !== REPORT_COMPLETE) return { status: body.status, entries: null };
    if (!body.data) {
      context.addIssue({ code: 'custom', message: 'is empty although the status says the report is complete', path: ['data'] });
      return z.NEVER;
    }
    const entries = z.array(BillingEntry).safeParse(body.data);
    if (!entries.success) {
      for (const issue of entries.error.issues) context.addIssue({ ...issue, path: ['data', ...issue.path] } as never);
      return z.NEVER;
    }
    return { status: body.status, entries: entries.data };
  });
export type ReportPoll = z.output<typeof ReportPoll>;

export const ReportPeriod = z
  .object({ startDate: IsoDate, endDate: IsoDate })
  .refine((period) => period.startDate <= period.endDate, { message: 'must not be before the start date', path: ['endDate'] });
export type ReportPeriod = z.infer<typeof ReportPeriod>;
