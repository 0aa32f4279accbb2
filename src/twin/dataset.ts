import { Money } from '@shared/money';
import { foldForSearch } from '@shared/search-fold';
import {
  ACCOUNT_MANAGERS,
  ADDON_NAMES,
  CITIES,
  COST_CENTRES,
  CURRENCIES,
  type Currency,
  ORGANIZATION_WORDS,
  PER_EUR,
  type ProductTemplate,
  SERVICES,
  type ServiceTemplate,
} from './catalogue';
import { mixSeed, SeededRandom } from './random';

export interface DatasetOptions {
  seed: number;
  organizations: number;
  /** Average billing lines per organization per month (the benchmark month uses 50: 2,000 × 50 = 100,000). */
  linesPerOrganization: number;
}

export interface TwinProduct {
  productId: string;
  template: ProductTemplate;
}

export interface TwinSubscription {
  subscriptionId: string;
  itemName: string;
  poNumber: string;
  products: TwinProduct[];
  addons: { addonId: string; name: string }[];
  metered: boolean;
}

export interface TwinServiceUse {
  serviceId: string;
  template: ServiceTemplate;
  subscriptions: TwinSubscription[];
}

export interface TwinOrganization {
  orgId: string;
  name: string;
  customerNumber: string;
  organizationGroups: string[];
  currency: Currency;
  registrationNumber: string;
  vat: string;
  contact: { name: string; email: string; phone: string; cellPhone: string };
  notificationEmail: string;
  address: { street: string; postalCode: string; city: string; countryCode: string };
  primaryDomain: string;
  services: TwinServiceUse[];
}

/** Ids that are the same for every organization: one per service and per catalogue product. */
function catalogueIds(seed: number) {
  const random = new SeededRandom(mixSeed(seed, 1));
  return SERVICES.map((service) => ({
    serviceId: random.guid(),
    productIds: service.products.map(() => random.guid()),
  }));
}

/** The twin's organizations with their subscriptions; the same options always give the same data. */
export function generateOrganizations(options: DatasetOptions): TwinOrganization[] {
  const ids = catalogueIds(options.seed);
  const organizations: TwinOrganization[] = [];
  const usedNames = new Set<string>();
  for (let index = 0; index < options.organizations; index++) {
    const random = new SeededRandom(mixSeed(options.seed, 2, index));
    const currency = CURRENCIES[index % CURRENCIES.length] as Currency;
    let name = `${random.pick(ORGANIZATION_WORDS.first)} ${random.pick(ORGANIZATION_WORDS.second)} ${random.pick(ORGANIZATION_WORDS.suffix)}`;
    if (usedNames.has(name)) name = `${name} ${index + 1}`;
    usedNames.add(name);
    const slug = foldForSearch(name) // Øresund → oresund
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const place = random.pick(CITIES[currency]);
    const organization: TwinOrganization = {
      orgId: random.guid(),
      name,
      customerNumber: `C-${String(10001 + index)}`,
      organizationGroups: [random.pick(COST_CENTRES), random.pick(ACCOUNT_MANAGERS)],
      currency,
      registrationNumber: `${random.int(100000, 999999)}-${random.int(1000, 9999)}`,
      vat: `${place.country}${random.int(100000000, 999999999)}01`,
      contact: {
        name: `${random.pick(['Anna', 'Erik', 'Liv', 'Mads', 'Sara', 'Olli', 'Nina', 'Jon'])} ${random.pick(['Nilsson', 'Hansen', 'Virtanen', 'Jensen', 'Berg', 'Koski'])}`,
        email: `it@${slug}.example`,
        phone: `+${random.int(10, 99)} ${random.int(100000, 999999)}`,
        cellPhone: `+${random.int(10, 99)} ${random.int(1000000, 9999999)}`,
      },
      notificationEmail: `billing@${slug}.example`,
      address: {
        street: `${random.pick(['Main', 'Harbour', 'Station', 'Mill'])} Street ${random.int(1, 120)}`,
        postalCode: String(random.int(10000, 99999)),
        city: place.city,
        countryCode: place.country,
      },
      primaryDomain: `${slug}.example`,
      services: [],
    };
    organization.services = generateServices(random, ids, name, options.linesPerOrganization);
    organizations.push(organization);
  }
  return organizations;
}

function generateServices(random: SeededRandom, ids: ReturnType<typeof catalogueIds>, orgName: string, averageLines: number): TwinServiceUse[] {
  let budget = Math.max(1, Math.round(averageLines * (0.5 + random.next())));
  const uses = new Map<number, TwinServiceUse>();
  const firstChoice = random.int(0, SERVICES.length - 1);
  for (let round = 0; budget > 0; round++) {
    // Everyone has their first service; further services are drawn, so organizations differ.
    const serviceIndex = round === 0 ? firstChoice : random.int(0, SERVICES.length - 1);
    const template = SERVICES[serviceIndex] as ServiceTemplate;
    const serviceIds = ids[serviceIndex] as { serviceId: string; productIds: string[] };
    let use = uses.get(serviceIndex);
    if (!use) {
      use = { serviceId: serviceIds.serviceId, template, subscriptions: [] };
      uses.set(serviceIndex, use);
    }
    const productCount = Math.min(budget, random.int(1, Math.min(3, template.products.length)));
    const start = random.int(0, template.products.length - 1);
    const products: TwinProduct[] = [];
    for (let p = 0; p < productCount; p++) {
      const productIndex = (start + p) % template.products.length;
      products.push({ productId: serviceIds.productIds[productIndex] as string, template: template.products[productIndex] as ProductTemplate });
    }
    const metered = Boolean(template.metered);
    use.subscriptions.push({
      subscriptionId: random.guid(),
      itemName: `${orgName} – ${(products[0] as TwinProduct).template.name}`,
      poNumber: random.chance(0.4) ? `PO-${random.int(10000, 99999)}` : '',
      products,
      addons: metered ? Array.from({ length: random.int(0, 2) }, (_, i) => ({ addonId: random.guid(), name: ADDON_NAMES[i] as string })) : [],
      metered,
    });
    budget -= productCount;
  }
  return [...uses.values()];
}

/** Currency the Broker buys a service in: vendor services in the customer's currency, custom ones in USD. */
export function serviceCurrencies(organization: TwinOrganization, template: ServiceTemplate): { cost: Currency; sales: Currency } {
  return template.kind === 'custom' ? { cost: 'USD', sales: organization.currency } : { cost: organization.currency, sales: organization.currency };
}

/** A decimal string with a fixed number of places (2–4), rounded half-even. */
export function decimalString(value: Money, places: number): string {
  return value.toDecimalPlaces(places, Money.ROUND_HALF_EVEN).toFixed(places);
}

export function priceFor(template: ProductTemplate, currency: Currency, random: SeededRandom): Money {
  const places = template.metered ? 4 : 2;
  return new Money(decimalString(new Money(template.unitCost).times(PER_EUR[currency]).times(0.92 + random.next() * 0.16), places));
}
