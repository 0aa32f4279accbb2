import { Money } from '@shared/money';
import { type Currency, PER_EUR } from './catalogue';
import { decimalString, priceFor, serviceCurrencies, type TwinOrganization, type TwinSubscription } from './dataset';
import { type MonthPlan, monthNumber, monthPlan } from './planted';
import { hashText, mixSeed, SeededRandom } from './random';

/** The wire shapes of spec §2.3, as the twin sends them. */
export interface WireProduct {
  productName: string;
  productId: string;
  itemCode: string;
  quantity: number;
  resellerPricePerUnit: string;
  customerPricePerUnit: string;
  totalResellerPrice: string;
  totalCustomerPrice: string;
  itemDetails: string;
}

export interface WireItem {
  itemName: string;
  subscriptionId: string;
  poNumber: string;
  quantity: number;
  totalResellerPrice: string;
  totalCustomerPrice: string;
  resellerPricePerUnit: string;
  customerPricePerUnit: string;
  products: WireProduct[];
}

export interface WireService {
  serviceName: string;
  serviceId: string;
  totalResellerPrice: string;
  totalCustomerPrice: string;
  currencyCode: string;
  customerCurrencyCode: string;
  items: WireItem[];
}

export interface WireOrganization {
  name: string;
  customerNumber: string;
  orgId: string;
  organizationGroups: string[];
  services: WireService[];
}

export interface WireBillingEntry {
  billingDate: string;
  billingContentStartDate: string;
  billingContentEndDate: string;
  organizations: WireOrganization[];
}

export interface ReportOptions {
  seed: number;
  /** Services (1 in N) whose stated total is off by one cent from the sum of its items, as real data sometimes is. */
  inconsistentEvery?: number;
  /** Plant each month's changes and anomalies (planted.ts). Off here, so a test month follows the spec; the twin turns it on. */
  plant?: boolean;
  /** Months ('YYYY-MM') the service has restated since: one line has 3 more licences, its totals to match. */
  restated?: ReadonlySet<string>;
}

/** Billing dates in [start, end]: each service's billing day in every month of the period. */
function billingDates(startDate: string, endDate: string, days: number[]): string[] {
  const dates: string[] = [];
  const start = new Date(`${startDate}T00:00:00Z`);
  const end = new Date(`${endDate}T00:00:00Z`);
  for (let cursor = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1)); cursor <= end; cursor.setUTCMonth(cursor.getUTCMonth() + 1)) {
    for (const day of days) {
      const date = new Date(Date.UTC(cursor.getUTCFullYear(), cursor.getUTCMonth(), day));
      if (date >= start && date <= end) dates.push(date.toISOString().slice(0, 10));
    }
  }
  return dates.sort();
}

interface LineContext {
  seed: number;
  month: string;
  plan: MonthPlan;
  restated: boolean;
  currencies: { cost: Currency; sales: Currency };
  subscription: TwinSubscription;
}

/**
 * A subscription's billing lines in a month. Prices, markups and licence counts follow the subscription id alone, so
 * they are the same every month; usage varies by up to ±10 % a month; the month's plan adds its planted changes.
 */
function billingLines({ seed, month, plan, restated, currencies, subscription }: LineContext): WireProduct[] {
  const random = new SeededRandom(mixSeed(seed, 3, hashText(subscription.subscriptionId)));
  return subscription.products.map((product, productIndex) => {
    const metered = Boolean(product.template.metered);
    const places = metered ? 4 : 2;
    const ids = [subscription.subscriptionId, product.productId] as const;
    let quantity: number;
    if (metered) {
      const usualCents = Math.round(random.next() * 500_000);
      const perMille = new SeededRandom(mixSeed(seed, 4, hashText(subscription.subscriptionId), productIndex, monthNumber(month))).int(900, 1100);
      quantity = Math.round((usualCents * perMille) / 1000) / 100;
    } else {
      quantity = random.int(1, 250) * 2 ** plan.quantityDoublings(...ids) + (restated && plan.isRestated(...ids) ? 3 : 0);
    }
    let resellerUnit = priceFor(product.template, currencies.cost, random);
    for (let step = plan.priceSteps(...ids); step > 0; step--) resellerUnit = new Money(decimalString(resellerUnit.times('1.05'), places));
    const markup = 1.08 + random.next() * 0.27;
    const exchange = PER_EUR[currencies.sales] / PER_EUR[currencies.cost];
    const sold = plan.isUnbilled(subscription.subscriptionId) ? 0 : plan.isBelowCost(subscription.subscriptionId) ? 0.9 : markup;
    const customerUnit = new Money(decimalString(resellerUnit.times(sold).times(exchange), places));
    // The planted mismatch bills one unit more than the line's quantity says.
    const billedQuantity = plan.isOffTotal(...ids) ? new Money(quantity).plus(1) : new Money(quantity);
    return {
      productName: product.template.name,
      productId: product.productId,
      itemCode: product.template.itemCode,
      quantity,
      resellerPricePerUnit: resellerUnit.toFixed(places),
      customerPricePerUnit: customerUnit.toFixed(places),
      totalResellerPrice: decimalString(resellerUnit.times(quantity), places),
      totalCustomerPrice: decimalString(customerUnit.times(billedQuantity), places),
      itemDetails: metered ? `Usage ${month}` : `${quantity} licences, monthly term`,
    } satisfies WireProduct;
  });
}

/** The report for a period: one billing entry per billing date, as spec §2.3 nests it. */
export function buildBillingReport(organizations: TwinOrganization[], startDate: string, endDate: string, options: ReportOptions): WireBillingEntry[] {
  const days = [...new Set(organizations.flatMap((org) => org.services.map((use) => use.template.billingDay)))];
  const dataset = { seed: options.seed, organizations };
  let serviceCounter = 0;
  return billingDates(startDate, endDate, days.length ? days : [7]).map((date) => {
    const day = Number(date.slice(8, 10));
    const month = date.slice(0, 7);
    const plan = monthPlan(dataset, month, Boolean(options.plant));
    const restated = Boolean(options.restated?.has(month));
    const wireOrganizations: WireOrganization[] = [];
    for (const organization of organizations) {
      const services: WireService[] = [];
      for (const use of organization.services.filter((candidate) => candidate.template.billingDay === day)) {
        const currencies = serviceCurrencies(organization, use.template);
        const subscriptions = plan.subscriptionsOf(use);
        if (subscriptions.length === 0) continue;
        const items = subscriptions.map((subscription) => {
          const products = billingLines({ seed: options.seed, month, plan, restated, currencies, subscription });
          const first = products[0] as WireProduct;
          return {
            itemName: subscription.itemName,
            subscriptionId: subscription.subscriptionId,
            poNumber: subscription.poNumber,
            // Summed exactly: a float sum (0.1 + 0.2) would send 17 significant digits, which a careful client refuses.
            quantity: Number(products.reduce((sum, product) => sum.plus(product.quantity), new Money(0)).toString()),
            totalResellerPrice: sumOf(products.map((product) => product.totalResellerPrice)),
            totalCustomerPrice: sumOf(products.map((product) => product.totalCustomerPrice)),
            resellerPricePerUnit: first.resellerPricePerUnit,
            customerPricePerUnit: first.customerPricePerUnit,
            products,
          } satisfies WireItem;
        });
        serviceCounter++;
        let totalReseller = sumOf(items.map((item) => item.totalResellerPrice));
        if (options.inconsistentEvery && serviceCounter % options.inconsistentEvery === 0) totalReseller = sumOf([totalReseller, '0.01']);
        services.push({
          serviceName: use.template.name,
          serviceId: use.serviceId,
          totalResellerPrice: totalReseller,
          totalCustomerPrice: sumOf(items.map((item) => item.totalCustomerPrice)),
          currencyCode: currencies.cost,
          customerCurrencyCode: currencies.sales,
          items,
        });
      }
      if (services.length) {
        wireOrganizations.push({
          name: organization.name,
          customerNumber: plan.hasNoCustomerNumber(organization.orgId) ? '' : organization.customerNumber,
          orgId: organization.orgId,
          organizationGroups: organization.organizationGroups,
          services,
        });
      }
    }
    return {
      billingDate: `${date}T00:00:00`,
      billingContentStartDate: `${startDate}T00:00:00`,
      billingContentEndDate: `${endDate}T00:00:00`,
      organizations: wireOrganizations,
    };
  });
}

/** Exact sum, written with as many decimal places as its most precise part (so 2–4, like the service). */
function sumOf(values: string[]): string {
  const places = Math.max(2, ...values.map((value) => value.split('.')[1]?.length ?? 0));
  return values.reduce((total, value) => total.plus(value), new Money(0)).toFixed(places);
}
