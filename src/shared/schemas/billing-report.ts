import { z } from 'zod';
import { CurrencyCode, DECIMAL_PATTERN, DecimalText, IsoDate } from './common';

/**
 * The billing report as the service sends it (spec §2.3), parsed strictly where it matters (money, ids, nesting)
 * and tolerantly where the spec allows variation (status as number or string, result bare or in an array).
 * Money stays a decimal string: it is summed exactly later, never as a float.
 */
export const DecimalString = z
  .union([z.string(), z.number()])
  .transform((value) => (typeof value === 'number' ? String(value) : value.trim()))
  .pipe(DecimalText);

/** Quantities are numbers in the spec; a numeric string is accepted too. */
const Quantity = z.union([z.number(), z.string().trim().regex(DECIMAL_PATTERN).transform(Number)]).pipe(z.number().finite());

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

/** A currency code as the service sends it: accepted in any case, kept upper-case. */
const WireCurrency = z.string().trim().toUpperCase().pipe(CurrencyCode);

export const BillingService = z.object({
  serviceName: text,
  serviceId: text,
  totalResellerPrice: DecimalString,
  totalCustomerPrice: DecimalString,
  currencyCode: WireCurrency,
  /** Usually equal to currencyCode; absent is read as equal. */
  customerCurrencyCode: WireCurrency.nullish(),
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

export const ReportPeriod = z
  .object({ startDate: IsoDate, endDate: IsoDate })
  .refine((period) => period.startDate <= period.endDate, { message: 'must not be before the start date', path: ['endDate'] });
export type ReportPeriod = z.infer<typeof ReportPeriod>;

/**
 * The same report as Closebook stores it: already normalised when it was fetched, so saved files are checked
 * against this strict canonical shape (plain types, no unions or transforms) — as thorough, and about twice as
 * fast for a 100,000-line month as re-running the tolerant wire parsing.
 */
const StoredDecimal = DecimalText;
const StoredCurrency = CurrencyCode;

const StoredBillingLine = z.object({
  productName: z.string(),
  productId: z.string(),
  itemCode: z.string(),
  quantity: z.number(),
  resellerPricePerUnit: StoredDecimal,
  customerPricePerUnit: StoredDecimal,
  totalResellerPrice: StoredDecimal,
  totalCustomerPrice: StoredDecimal,
  itemDetails: z.string(),
});

export const StoredBillingEntry = z.object({
  billingDate: z.string(),
  billingContentStartDate: z.string(),
  billingContentEndDate: z.string(),
  organizations: z.array(
    z.object({
      name: z.string(),
      customerNumber: z.string(),
      orgId: z.string(),
      organizationGroups: z.array(z.string()),
      services: z.array(
        z.object({
          serviceName: z.string(),
          serviceId: z.string(),
          totalResellerPrice: StoredDecimal,
          totalCustomerPrice: StoredDecimal,
          currencyCode: StoredCurrency,
          customerCurrencyCode: StoredCurrency,
          items: z.array(
            z.object({
              itemName: z.string(),
              subscriptionId: z.string(),
              poNumber: z.string(),
              quantity: z.number(),
              totalResellerPrice: StoredDecimal,
              totalCustomerPrice: StoredDecimal,
              resellerPricePerUnit: StoredDecimal.nullish(),
              customerPricePerUnit: StoredDecimal.nullish(),
              products: z.array(StoredBillingLine),
            }),
          ),
        }),
      ),
    }),
  ),
}) satisfies z.ZodType<BillingEntry>;
