import { z } from 'zod';
import { CountryCode, DomainName, Email } from './common';

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((value) => (value === '' ? undefined : value));

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema.optional());

/**
 * Creating an organization (spec §2.1). The spec does not say which fields the service requires, so we require
 * what a reseller cannot run a customer without: its name, a contact e-mail (where the vendor sends the admin
 * invitation) and the country (which drives VAT). Every other field is optional but checked for form.
 */
export const OrganizationInput = z.object({
  name: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  registrationNumber: optionalText(50),
  vat: optionalText(30),
  contact: z.object({
    name: optionalText(200),
    email: Email,
    phone: optionalText(40),
    cellPhone: optionalText(40),
  }),
  customerNumber: optionalText(50),
  notificationEmail: optional(Email),
  address: z.object({
    street: optionalText(200),
    postalCode: optionalText(20),
    city: optionalText(100),
    countryCode: CountryCode,
  }),
  primaryDomain: optional(DomainName),
});
export type OrganizationInput = z.infer<typeof OrganizationInput>;

/**
 * An organization as Closebook shows it. The service's record shape is "not shown" in the spec, so the client
 * maps whatever it gets onto this (see core/organizations/organizations-api.ts) and keeps only what it understands.
 */
export const OrganizationSummary = z.object({
  orgId: z.string(),
  name: z.string(),
  customerNumber: z.string().optional(),
  registrationNumber: z.string().optional(),
  vat: z.string().optional(),
  primaryDomain: z.string().optional(),
  countryCode: z.string().optional(),
  city: z.string().optional(),
  contactName: z.string().optional(),
  contactEmail: z.string().optional(),
  organizationGroups: z.array(z.string()).optional(),
});
export type OrganizationSummary = z.infer<typeof OrganizationSummary>;

/** The organizations the newest saved month of a profile bills: what the service's list is held against. */
export const OrganizationsInReport = z.object({
  reportId: z.string(),
  reportName: z.string(),
  organizations: z.array(z.object({ name: z.string(), customerNumber: z.string(), orgId: z.string() })),
});
export type OrganizationsInReport = z.infer<typeof OrganizationsInReport>;
