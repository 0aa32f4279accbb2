import { decimalPlaces, fromUnits, toUnits } from './fixed-decimal';
import { marginPercent, money } from './money';
import type { BillingEntry } from './schemas/billing-report';
import type { CurrencyTotal } from './schemas/saved-report';

/**
 * The report as the viewer and the export see it: one flat row per billing line, each pointing at its organization,
 * service and subscription, with exact amounts in integer units. Filters run over the flat rows; the tree
 * (organization › service › subscription › line) is built from whatever rows pass.
 */

export interface OrganizationRef {
  key: string;
  name: string;
  customerNumber: string;
  orgId: string;
  groups: string[];
}

/** A stated total next to the exact sum of its children, when they differ. */
export interface Mismatch {
  statedCost: string;
  statedSales: string;
  sumCost: string;
  sumSales: string;
}

export interface ServiceRef {
  key: string;
  name: string;
  serviceId: string;
  currency: string;
  customerCurrency: string;
  /** "SEK", or "USD→SEK" when bought and sold in different currencies. */
  currencyKey: string;
  billingDate: string;
  mismatch: Mismatch | null;
}

export interface SubscriptionRef {
  key: string;
  name: string;
  subscriptionId: string;
  poNumber: string;
  mismatch: Mismatch | null;
}

export interface ReportLine {
  organization: OrganizationRef;
  service: ServiceRef;
  subscription: SubscriptionRef;
  productName: string;
  productId: string;
  itemCode: string;
  quantity: number;
  resellerPricePerUnit: string;
  customerPricePerUnit: string;
  totalResellerPrice: string;
  totalCustomerPrice: string;
  itemDetails: string;
  cost: bigint;
  sales: bigint;
  /** Lower-case text the free-text filter searches. */
  search: string;
}

export interface ReportModel {
  lines: ReportLine[];
  /** Decimal places of the integer units in `cost` and `sales`. */
  scale: number;
  groups: string[];
  services: string[];
  currencies: string[];
  organizationCount: number;
}

export function currencyKey(currency: string, customerCurrency: string): string {
  return currency === customerCurrency ? currency : `${currency}→${customerCurrency}`;
}

export function isSingleCurrency(key: string): boolean {
  return !key.includes('→');
}

function maxScale(entries: BillingEntry[]): number {
  let scale = 2;
  for (const entry of entries) {
    for (const organization of entry.organizations) {
      for (const service of organization.services) {
        scale = Math.max(scale, decimalPlaces(service.totalResellerPrice), decimalPlaces(service.totalCustomerPrice));
        for (const item of service.items) {
          scale = Math.max(scale, decimalPlaces(item.totalResellerPrice), decimalPlaces(item.totalCustomerPrice));
          for (const line of item.products) scale = Math.max(scale, decimalPlaces(line.totalResellerPrice), decimalPlaces(line.totalCustomerPrice));
        }
      }
    }
  }
  return scale;
}

function mismatch(statedCost: string, statedSales: string, sumCost: bigint, sumSales: bigint, scale: number): Mismatch | null {
  if (toUnits(statedCost, scale) === sumCost && toUnits(statedSales, scale) === sumSales) return null;
  return { statedCost, statedSales, sumCost: fromUnits(sumCost, scale), sumSales: fromUnits(sumSales, scale) };
}

/** `searchable: false` skips the free-text index (the export without a text filter does not need it). */
export function buildReportModel(entries: BillingEntry[], options: { searchable?: boolean } = {}): ReportModel {
  const searchable = options.searchable ?? true;
  const scale = maxScale(entries);
  const lines: ReportLine[] = [];
  const organizations = new Map<string, OrganizationRef>();
  const groups = new Set<string>();
  const services = new Set<string>();
  const currencies = new Set<string>();

  entries.forEach((entry, entryIndex) => {
    entry.organizations.forEach((wireOrganization, organizationIndex) => {
      const organizationKey = wireOrganization.orgId || `${wireOrganization.name}|${wireOrganization.customerNumber}`;
      let organization = organizations.get(organizationKey);
      if (!organization) {
        organization = { key: organizationKey, name: wireOrganization.name, customerNumber: wireOrganization.customerNumber, orgId: wireOrganization.orgId, groups: wireOrganization.organizationGroups };
        organizations.set(organizationKey, organization);
        for (const group of organization.groups) groups.add(group);
      }
      wireOrganization.services.forEach((wireService, serviceIndex) => {
        const key = currencyKey(wireService.currencyCode, wireService.customerCurrencyCode);
        currencies.add(key);
        services.add(wireService.serviceName);
        const service: ServiceRef = {
          key: `${entryIndex}/${organizationIndex}/${serviceIndex}`,
          name: wireService.serviceName,
          serviceId: wireService.serviceId,
          currency: wireService.currencyCode,
          customerCurrency: wireService.customerCurrencyCode,
          currencyKey: key,
          billingDate: entry.billingDate,
          mismatch: null,
        };
        let serviceCost = 0n;
        let serviceSales = 0n;
        wireService.items.forEach((item, itemIndex) => {
          const subscription: SubscriptionRef = { key: `${service.key}/${itemIndex}`, name: item.itemName, subscriptionId: item.subscriptionId, poNumber: item.poNumber, mismatch: null };
          let itemCost = 0n;
          let itemSales = 0n;
          for (const product of item.products) {
            const cost = toUnits(product.totalResellerPrice, scale);
            const sales = toUnits(product.totalCustomerPrice, scale);
            itemCost += cost;
            itemSales += sales;
            lines.push({
              organization,
              service,
              subscription,
              productName: product.productName,
              productId: product.productId,
              itemCode: product.itemCode,
              quantity: product.quantity,
              resellerPricePerUnit: product.resellerPricePerUnit,
              customerPricePerUnit: product.customerPricePerUnit,
              totalResellerPrice: product.totalResellerPrice,
              totalCustomerPrice: product.totalCustomerPrice,
              itemDetails: product.itemDetails,
              cost,
              sales,
              search: !searchable ? '' : [organization.name, organization.customerNumber, organization.orgId, wireService.serviceName, wireService.serviceId, item.itemName, item.subscriptionId, item.poNumber, product.productName, product.productId, product.itemCode, product.itemDetails]
                .join('\u0000')
                .toLowerCase(),
            });
          }
          subscription.mismatch = item.products.length ? mismatch(item.totalResellerPrice, item.totalCustomerPrice, itemCost, itemSales, scale) : null;
          // The service total is checked against its items' stated totals: the level directly below it.
          serviceCost += toUnits(item.totalResellerPrice, scale);
          serviceSales += toUnits(item.totalCustomerPrice, scale);
        });
        service.mismatch = mismatch(wireService.totalResellerPrice, wireService.totalCustomerPrice, serviceCost, serviceSales, scale);
      });
    });
  });

  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return {
    lines,
    scale,
    groups: [...groups].sort(collator.compare),
    services: [...services].sort(collator.compare),
    currencies: [...currencies].sort(),
    organizationCount: organizations.size,
  };
}

export interface ReportFilter {
  group?: string | undefined;
  /** Organization name or customer number (substring, any case). */
  organization?: string | undefined;
  service?: string | undefined;
  currency?: string | undefined;
  text?: string | undefined;
}

export function isEmptyFilter(filter: ReportFilter): boolean {
  return !filter.group && !filter.organization?.trim() && !filter.service && !filter.currency && !filter.text?.trim();
}

export function filterLines(model: ReportModel, filter: ReportFilter): ReportLine[] {
  if (isEmptyFilter(filter)) return model.lines;
  const organization = filter.organization?.trim().toLowerCase();
  const words = filter.text?.trim().toLowerCase().split(/\s+/).filter(Boolean) ?? [];
  return model.lines.filter((line) => {
    if (filter.group && !line.organization.groups.includes(filter.group)) return false;
    if (filter.service && line.service.name !== filter.service) return false;
    if (filter.currency && line.service.currencyKey !== filter.currency) return false;
    if (organization && !line.organization.name.toLowerCase().includes(organization) && !line.organization.customerNumber.toLowerCase().includes(organization)) return false;
    for (const word of words) if (!line.search.includes(word)) return false;
    return true;
  });
}

export interface Totals {
  cost: bigint;
  sales: bigint;
  quantity: number;
  lines: number;
}

export type TreeLevel = 'organization' | 'service' | 'subscription' | 'line';

export interface TreeNode extends Totals {
  key: string;
  level: TreeLevel;
  label: string;
  detail: string;
  currencyKey: string;
  mismatch: Mismatch | null;
  children: TreeNode[];
  line?: ReportLine;
}

function node(key: string, level: TreeLevel, label: string, detail: string, currency: string, mismatchFlag: Mismatch | null): TreeNode {
  return { key, level, label, detail, currencyKey: currency, mismatch: mismatchFlag, children: [], cost: 0n, sales: 0n, quantity: 0, lines: 0 };
}

/**
 * organization (one node per currency it is billed in, so no node ever adds two currencies) › service ›
 * subscription › billing line, with exact totals at every level.
 */
export function buildTree(lines: ReportLine[]): TreeNode[] {
  const roots = new Map<string, TreeNode>();
  const index = new Map<string, TreeNode>();
  for (const line of lines) {
    const { organization, service, subscription } = line;
    const rootKey = `${organization.key}|${service.currencyKey}`;
    let root = roots.get(rootKey);
    if (!root) {
      root = node(rootKey, 'organization', organization.name, organization.customerNumber, service.currencyKey, null);
      roots.set(rootKey, root);
    }
    let serviceNode = index.get(service.key);
    if (!serviceNode) {
      serviceNode = node(service.key, 'service', service.name, service.billingDate.slice(0, 10), service.currencyKey, service.mismatch);
      index.set(service.key, serviceNode);
      root.children.push(serviceNode);
    }
    let subscriptionNode = index.get(subscription.key);
    if (!subscriptionNode) {
      subscriptionNode = node(subscription.key, 'subscription', subscription.name, subscription.poNumber ? `PO ${subscription.poNumber}` : '', service.currencyKey, subscription.mismatch);
      index.set(subscription.key, subscriptionNode);
      serviceNode.children.push(subscriptionNode);
    }
    const leaf = node(`${subscription.key}/${subscriptionNode.children.length}`, 'line', line.productName, line.itemCode, service.currencyKey, null);
    leaf.line = line;
    leaf.cost = line.cost;
    leaf.sales = line.sales;
    leaf.quantity = line.quantity;
    leaf.lines = 1;
    subscriptionNode.children.push(leaf);
    for (const parent of [subscriptionNode, serviceNode, root]) {
      parent.cost += line.cost;
      parent.sales += line.sales;
      parent.quantity += line.quantity;
      parent.lines += 1;
    }
  }
  return [...roots.values()];
}

/** Totals per currency (key), never across currencies. */
export function totalsByCurrency(lines: ReportLine[]): Map<string, Totals> {
  const totals = new Map<string, Totals>();
  for (const line of lines) {
    const key = line.service.currencyKey;
    const current = totals.get(key) ?? { cost: 0n, sales: 0n, quantity: 0, lines: 0 };
    current.cost += line.cost;
    current.sales += line.sales;
    current.quantity += line.quantity;
    current.lines += 1;
    totals.set(key, current);
  }
  return new Map([...totals.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Margin as a decimal string, or '' where cost and sales are in different currencies. */
export function marginOf(totals: Pick<Totals, 'cost' | 'sales'>, currency: string, scale: number): string {
  return isSingleCurrency(currency) ? fromUnits(totals.sales - totals.cost, scale) : '';
}

/** Margin % of sales (two decimals unless asked), or '' when there is no margin or no sales. */
export function marginPercentOf(totals: Pick<Totals, 'cost' | 'sales'>, currency: string, scale: number, places = 2): string {
  if (!isSingleCurrency(currency)) return '';
  const percent = marginPercent(money(fromUnits(totals.cost, scale)), money(fromUnits(totals.sales, scale)));
  return percent === null ? '' : percent.toFixed(places);
}

export function currencyTotals(lines: ReportLine[], scale: number): CurrencyTotal[] {
  return [...totalsByCurrency(lines).entries()].map(([currency, totals]) => ({
    currency,
    cost: fromUnits(totals.cost, scale),
    sales: fromUnits(totals.sales, scale),
    margin: marginOf(totals, currency, scale),
  }));
}

export type SortKey = 'label' | 'quantity' | 'cost' | 'sales' | 'margin' | 'marginPercent';
export interface TreeSort {
  key: SortKey;
  direction: 'asc' | 'desc';
}

const labelCollator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

function compareNodes(a: TreeNode, b: TreeNode, key: SortKey): number {
  switch (key) {
    case 'label':
      return labelCollator.compare(a.label, b.label) || a.currencyKey.localeCompare(b.currencyKey);
    case 'quantity':
      return a.quantity - b.quantity;
    case 'cost':
      return a.cost < b.cost ? -1 : a.cost > b.cost ? 1 : 0;
    case 'sales':
      return a.sales < b.sales ? -1 : a.sales > b.sales ? 1 : 0;
    case 'margin': {
      const ma = a.sales - a.cost;
      const mb = b.sales - b.cost;
      return ma < mb ? -1 : ma > mb ? 1 : 0;
    }
    case 'marginPercent': {
      const pa = a.sales === 0n ? -Infinity : Number(((a.sales - a.cost) * 1_000_000n) / a.sales);
      const pb = b.sales === 0n ? -Infinity : Number(((b.sales - b.cost) * 1_000_000n) / b.sales);
      return pa - pb;
    }
  }
}

/** Sorts every level in place by the same column. */
export function sortTree(nodes: TreeNode[], sort: TreeSort): TreeNode[] {
  const factor = sort.direction === 'asc' ? 1 : -1;
  nodes.sort((a, b) => factor * compareNodes(a, b, sort.key));
  for (const child of nodes) if (child.children.length) sortTree(child.children, sort);
  return nodes;
}

export interface ReportCounts {
  billingEntries: number;
  organizations: number;
  services: number;
  subscriptions: number;
  lines: number;
}

export function countReport(entries: BillingEntry[]): ReportCounts {
  const organizations = new Set<string>();
  let services = 0;
  let subscriptions = 0;
  let lines = 0;
  for (const entry of entries) {
    for (const organization of entry.organizations) {
      organizations.add(organization.orgId || organization.name);
      services += organization.services.length;
      for (const service of organization.services) {
        subscriptions += service.items.length;
        for (const item of service.items) lines += item.products.length;
      }
    }
  }
  return { billingEntries: entries.length, organizations: organizations.size, services, subscriptions, lines };
}
