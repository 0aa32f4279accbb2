import type { TwinOrganization } from './dataset';

/** What the twin answers for an organization (the real record shape is "not shown"; we return the create fields plus ids). */
export function organizationRecord(organization: TwinOrganization) {
  const { services: _services, currency: _currency, ...record } = organization;
  return record;
}

export type ValidationErrors = Record<string, string[]>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * The twin's own rules for a new organization, written from the service's side (ASP.NET-style field names),
 * including one the client cannot check: a customer number already in use.
 */
export function validateNewOrganization(body: unknown, existing: TwinOrganization[]): ValidationErrors {
  const errors: ValidationErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    add('$', 'The request body must be a JSON object.');
    return errors;
  }
  const input = body as Record<string, unknown>;
  const contact = (input.contact ?? {}) as Record<string, unknown>;
  const address = (input.address ?? {}) as Record<string, unknown>;
  if (!text(input.name)) add('Name', 'The Name field is required.');
  if (!EMAIL.test(text(contact.email))) add('Contact.Email', 'The Email field is not a valid e-mail address.');
  if (text(input.notificationEmail) && !EMAIL.test(text(input.notificationEmail)))
    add('NotificationEmail', 'The NotificationEmail field is not a valid e-mail address.');
  if (!/^[A-Z]{2}$/.test(text(address.countryCode))) add('Address.CountryCode', 'CountryCode must be a two-letter ISO 3166 code.');
  if (text(input.primaryDomain) && !DOMAIN.test(text(input.primaryDomain))) add('PrimaryDomain', 'PrimaryDomain is not a valid domain name.');
  const customerNumber = text(input.customerNumber);
  const holder = customerNumber ? existing.find((organization) => organization.customerNumber === customerNumber) : undefined;
  if (holder) add('CustomerNumber', `Customer number ${customerNumber} is already used by ${holder.name}.`);
  return errors;
}
