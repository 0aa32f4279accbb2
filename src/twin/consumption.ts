import { isGuid } from '@shared/schemas/common';
import type { TwinOrganization, TwinSubscription } from './dataset';

export interface WireConsumptionRecord {
  consumptionId?: string | null;
  subscriptionId: string;
  isAddon: boolean;
  addonId?: string | null;
  quantity: number;
}

export interface WireFailedRecord {
  errorMessage: string;
  consumptionId: string | null;
  subscriptionId: string;
  isAddon: boolean;
  addonId: string | null;
  quantity: number;
}

/** Checks the request's structure; a malformed body is refused at once (400), before any task is made. */
export function readConsumptionBody(body: unknown): { records: WireConsumptionRecord[] } | { errors: Record<string, string[]> } {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { consumptionRecords?: unknown }).consumptionRecords)) {
    return { errors: { ConsumptionRecords: ['consumptionRecords must be an array of consumption records.'] } };
  }
  const raw = (body as { consumptionRecords: unknown[] }).consumptionRecords;
  if (raw.length === 0) return { errors: { ConsumptionRecords: ['At least one consumption record is required.'] } };
  const errors: Record<string, string[]> = {};
  raw.forEach((record, index) => {
    const r = (record ?? {}) as Record<string, unknown>;
    if (typeof r.subscriptionId !== 'string') (errors[`ConsumptionRecords[${index}].SubscriptionId`] ??= []).push('The SubscriptionId field is required.');
    if (typeof r.isAddon !== 'boolean') (errors[`ConsumptionRecords[${index}].IsAddon`] ??= []).push('The IsAddon field is required.');
    if (typeof r.quantity !== 'number' || !Number.isFinite(r.quantity))
      (errors[`ConsumptionRecords[${index}].Quantity`] ??= []).push('The Quantity field is required.');
  });
  return Object.keys(errors).length ? { errors } : { records: raw as WireConsumptionRecord[] };
}

/**
 * The service's rules for each record (spec §2.4, §7). Every failing record is reported; the batch is all or nothing.
 */
export function findFailedRecords(
  records: WireConsumptionRecord[],
  subscriptions: Map<string, TwinSubscription>,
  knownConsumptionIds: Set<string>,
  sellerId: string,
): WireFailedRecord[] {
  const failed: WireFailedRecord[] = [];
  for (const record of records) {
    const message = recordError(record, subscriptions, knownConsumptionIds, sellerId);
    if (message) {
      failed.push({
        errorMessage: message,
        consumptionId: record.consumptionId || null,
        subscriptionId: record.subscriptionId,
        isAddon: record.isAddon,
        addonId: record.addonId || null,
        quantity: record.quantity,
      });
    }
  }
  return failed;
}

function recordError(
  record: WireConsumptionRecord,
  subscriptions: Map<string, TwinSubscription>,
  knownConsumptionIds: Set<string>,
  sellerId: string,
): string | null {
  if (!isGuid(record.subscriptionId)) return `SubscriptionId '${record.subscriptionId}' is not a valid GUID.`;
  const subscription = subscriptions.get(record.subscriptionId.toLowerCase());
  if (!subscription) return `Subscription ${record.subscriptionId} does not exist for seller ${sellerId}.`;
  if (!subscription.metered) return `Subscription ${record.subscriptionId} is not a metered subscription.`;
  if (record.isAddon && !record.addonId) return 'AddonId is required when IsAddon is true.';
  if (!record.isAddon && record.addonId) return 'IsAddon must be true when AddonId is given.';
  if (record.addonId && !subscription.addons.some((addon) => addon.addonId.toLowerCase() === record.addonId?.toLowerCase())) {
    return `Add-on ${record.addonId} does not belong to subscription ${record.subscriptionId}.`;
  }
  if (record.quantity < 0) return 'Quantity must be zero or greater.';
  if (record.consumptionId && !knownConsumptionIds.has(record.consumptionId.toLowerCase())) {
    return `Consumption record ${record.consumptionId} does not exist.`;
  }
  return null;
}

/** Every subscription of the twin (metered or not), keyed by lower-case id. */
export function subscriptionsById(organizations: TwinOrganization[]): Map<string, TwinSubscription> {
  const map = new Map<string, TwinSubscription>();
  for (const organization of organizations) {
    for (const use of organization.services) {
      for (const subscription of use.subscriptions) map.set(subscription.subscriptionId.toLowerCase(), subscription);
    }
  }
  return map;
}
