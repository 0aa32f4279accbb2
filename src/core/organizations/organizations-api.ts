import { z } from 'zod';
import type { OrganizationInput, OrganizationSummary } from '@shared/schemas/organization';
import type { RetryNotice, ServiceClient } from '../service-api/service-client';

const text = z
  .string()
  .nullish()
  .transform((value) => (value ? value : undefined));

/**
 * The organization record the service returns is "not shown" in the spec. We accept the id under `orgId`, `id`
 * or `organizationId`, the fields of the create request (§2.1) where present, and ignore everything else.
 */
const OrganizationRecord = z
  .object({
    orgId: z.string().optional(),
    id: z.union([z.string(), z.number()]).optional(),
    organizationId: z.string().optional(),
    name: z.string(),
    customerNumber: text,
    registrationNumber: text,
    vat: text,
    primaryDomain: text,
    organizationGroups: z.array(z.string()).nullish(),
    contact: z.object({ name: text, email: text }).nullish(),
    address: z.object({ city: text, countryCode: text }).nullish(),
  })
  .refine((record) => record.orgId ?? record.id ?? record.organizationId, 'has no organization id (orgId)');

type OrganizationRecord = z.infer<typeof OrganizationRecord>;

/** A list may come bare or wrapped in a paging envelope; accept both. */
const OrganizationList = z.union([
  z.array(OrganizationRecord),
  z.object({ data: z.array(OrganizationRecord) }).transform((body) => body.data),
  z.object({ items: z.array(OrganizationRecord) }).transform((body) => body.items),
  z.object({ value: z.array(OrganizationRecord) }).transform((body) => body.value),
]);

function toSummary(record: OrganizationRecord): OrganizationSummary {
  const summary: OrganizationSummary = {
    orgId: String(record.orgId ?? record.id ?? record.organizationId),
    name: record.name,
  };
  const optional: Partial<OrganizationSummary> = {
    customerNumber: record.customerNumber,
    registrationNumber: record.registrationNumber,
    vat: record.vat,
    primaryDomain: record.primaryDomain,
    countryCode: record.address?.countryCode,
    city: record.address?.city,
    contactName: record.contact?.name,
    contactEmail: record.contact?.email,
    organizationGroups: record.organizationGroups ?? undefined,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (summary as Record<string, unknown>)[key] = value;
  }
  return summary;
}

export async function listOrganizations(client: ServiceClient, signal?: AbortSignal, onRetry?: (notice: RetryNotice) => void): Promise<OrganizationSummary[]> {
  const { resellerId } = client.connection;
  const response = await client.request({
    method: 'GET',
    target: `/api/resellers/${encodeURIComponent(resellerId)}/Organizations`,
    schema: OrganizationList,
    retry: 'safe',
    what: 'the organization list',
    ...(signal ? { signal } : {}),
    ...(onRetry ? { onRetry } : {}),
  });
  return response.data.map(toSummary);
}

/**
 * Creates an organization. The response is "not shown": when the service returns the record we use it, and when it
 * returns nothing readable we show what was sent, under the id from a Location header if there is one.
 */
export async function createOrganization(client: ServiceClient, input: OrganizationInput): Promise<OrganizationSummary> {
  const { resellerId } = client.connection;
  const response = await client.request({
    method: 'POST',
    target: `/api/resellers/${encodeURIComponent(resellerId)}/Organizations`,
    body: input,
    schema: z.unknown(),
    retry: 'unsafe',
    what: 'the new organization',
  });
  const record = OrganizationRecord.safeParse(response.data);
  if (record.success) return toSummary(record.data);
  const location = response.headers.get('location');
  const orgId = location?.split('/').filter(Boolean).pop() ?? '';
  return toSummary({
    orgId,
    name: input.name,
    customerNumber: input.customerNumber,
    registrationNumber: input.registrationNumber,
    vat: input.vat,
    primaryDomain: input.primaryDomain,
    contact: { name: input.contact.name, email: input.contact.email },
    address: { city: input.address.city, countryCode: input.address.countryCode },
    organizationGroups: [],
  } as OrganizationRecord);
}
