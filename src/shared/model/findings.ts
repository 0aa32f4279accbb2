import { type BillingException, type Severity, SEVERITY_RANK } from '../schemas/month-close';
import { organizationKey } from './organization-key';

type Located = Pick<BillingException, 'orgId' | 'organization' | 'customerNumber' | 'service' | 'serviceId' | 'currencyKey'>;

/**
 * One cause, one finding: the exceptions of one customer's service in one currency pair are one finding. A price cut
 * below cost trips "sold below cost", "margin far from usual" (the service) and "unit price changed" (its products);
 * a line no longer billed is "cost with no sales" and "price 495 → 0" — each one thing to look at, with its reasons.
 * An organization-wide exception (no customer number, a whole customer lost) is a finding of the organization.
 * The exceptions keep their own ids and reviews (the sign-off and its log name them); a finding only groups them.
 */
export function findingKeyOf(exception: Located): string {
  return [organizationKey(exception), exception.serviceId || exception.service || '', exception.currencyKey ?? ''].join('\u0000');
}

/** What a finding is about, in words: "Acme AB · Azure plan (SEK)", or the organization alone. */
export function findingName(exception: Located): string {
  const service = exception.service ? ` · ${exception.service}` : '';
  const currency = exception.currencyKey ? ` (${exception.currencyKey})` : '';
  return `${exception.organization || '(no name)'}${service}${currency}`;
}

export interface Finding<T extends Located & Pick<BillingException, 'severity'>> {
  key: string;
  name: string;
  /** The most severe of its exceptions. */
  severity: Severity;
  /** Most severe first, otherwise in the order given. */
  exceptions: T[];
}

/** Exceptions grouped into findings, in the order each finding first appears; within one, the most severe first. */
export function groupFindings<T extends Located & Pick<BillingException, 'severity'>>(exceptions: readonly T[]): Finding<T>[] {
  const findings = new Map<string, Finding<T>>();
  for (const exception of exceptions) {
    const key = findingKeyOf(exception);
    const finding = findings.get(key) ?? { key, name: findingName(exception), severity: exception.severity, exceptions: [] };
    finding.exceptions.push(exception);
    if (SEVERITY_RANK[exception.severity] < SEVERITY_RANK[finding.severity]) finding.severity = exception.severity;
    findings.set(key, finding);
  }
  // Array sorts are stable: equals keep the order given.
  for (const finding of findings.values()) finding.exceptions.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  return [...findings.values()];
}

/** Findings with the most severe first, otherwise in the order they first appear. */
export function bySeverity<T extends Located & Pick<BillingException, 'severity'>>(findings: Finding<T>[]): Finding<T>[] {
  return [...findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
}
