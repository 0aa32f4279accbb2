import { Money } from '../../shared/money';
import { PER_EUR } from './catalogue';
import { decimalString, priceFor, serviceCurrencies, type TwinOrganization } from './dataset';
import { mixSeed, SeededRandom } from './random';

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

/** The report for a period: one billing entry per billing date, as spec §2.3 nests it. */
export function buildBillingReport(organizations: TwinOrganization[], startDate: string, endDate: string, options: ReportOptions): WireBillingEntry[] {
  const days = [...new Set(organizations.flatMap((org) => org.services.map((use) => use.template.billingDay)))];
  let serviceCounter = 0;
  return billingDates(startDate, endDate, days.length ? days : [7]).map((date) => {
    const day = Number(date.slice(8, 10));
    const monthKey = Number(date.slice(0, 7).replace('-', ''));
    const wireOrganizations: WireOrganization[] = [];
    for (const [orgIndex, organization] of organizations.entries()) {
      const services: WireService[] = [];
      for (const use of organization.services.filter((candidate) => candidate.template.billingDay === day)) {
        const currencies = serviceCurrencies(organization, use.template);
        const items = use.subscriptions.map((subscription, subIndex) => {
          const random = new SeededRandom(mixSeed(options.seed, 3, orgIndex, subIndex, monthKey, day));
          const products = subscription.products.map((product) => {
            const metered = Boolean(product.template.metered);
            const quantity = metered ? Math.round(random.next() * 500_000) / 100 : random.int(1, 250);
            const resellerUnit = priceFor(product.template, currencies.cost, random);
            const markup = 1.08 + random.next() * 0.27;
            const exchange = PER_EUR[currencies.sales] / PER_EUR[currencies.cost];
            const customerUnit = new Money(decimalString(resellerUnit.times(markup).times(exchange), metered ? 4 : 2));
            const places = metered ? 4 : 2;
            return {
              productName: product.template.name,
              productId: product.productId,
              itemCode: product.template.itemCode,
              quantity,
              resellerPricePerUnit: resellerUnit.toFixed(places),
              customerPricePerUnit: customerUnit.toFixed(places),
              totalResellerPrice: decimalString(resellerUnit.times(quantity), places),
              totalCustomerPrice: decimalString(customerUnit.times(quantity), places),
              itemDetails: metered ? `Usage ${date.slice(0, 7)}` : `${quantity} licences, monthly term`,
            } satisfies WireProduct;
          });
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
          customerNumber: organization.customerNumber,
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
