import { z } from 'zod';
import type { OrganizationInput, OrganizationSummary } from '@shared/schemas/organization';
import { ANSWER_LIMITS, jsonDepthOver, type RetryNotice, type ServiceClient } from '../service-api/service-client';

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
 * returns less we show what was sent, under the id the answer gives (createdId). A 2xx answer means the organization
 * exists, so nothing in its body may make this fail: "try again" would create it twice.
 */
export async function createOrganization(client: ServiceClient, input: OrganizationInput): Promise<OrganizationSummary> {
  const { resellerId } = client.connection;
  const response = await client.request({
    method: 'POST',
    target: `/api/resellers/${encodeURIComponent(resellerId)}/Organizations`,
    body: input,
    schema: null, // read below, as leniently as a created organization needs
    retry: 'unsafe',
    what: 'the new organization',
  });
  const body = jsonOrText(response.text);
  const record = OrganizationRecord.safeParse(body);
  if (record.success) return toSummary(record.data);
  return toSummary({
    orgId: createdId(body, response.headers.get('location')),
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

/** A body as JSON when it is JSON (within the bound every answer is read in), else as its text (a bare id). */
function jsonOrText(text: string): unknown {
  if (jsonDepthOver(text, ANSWER_LIMITS.depth)) return text.trim();
  try {
    return JSON.parse(text);
  } catch {
    return text.trim();
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The new organization's id from an answer that is not its record: an object naming the id alone (`orgId`, `id`,
 * `organizationId`), a bare GUID (as JSON text or plain), else the `location` header's last segment; '' when the
 * answer gives none (the organization exists; the list shows it with its id).
 */
function createdId(body: unknown, location: string | null): string {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const { orgId, id, organizationId } = body as Record<string, unknown>;
    const named = [orgId, id, organizationId].find((value) => typeof value === 'string' || typeof value === 'number');
    if (named !== undefined) return String(named);
  }
  if (typeof body === 'string' && GUID.test(body)) return body;
  return location?.split('/').filter(Boolean).pop() ?? '';
}
