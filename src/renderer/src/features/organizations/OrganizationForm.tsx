import { useState } from 'react';
import { fieldErrorsFromZod } from '@shared/errors';
import { OrganizationInput, type OrganizationSummary } from '@shared/schemas/organization';
import { call, RequestError } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { Field } from '@renderer/components/Field';
import { FormActions } from '@renderer/components/FormActions';
import { useAction } from '@renderer/hooks/use-action';

const FIELDS = [
  ['name', 'Name', true],
  ['customerNumber', 'Customer number', false],
  ['registrationNumber', 'Registration number', false],
  ['vat', 'VAT number', false],
  ['primaryDomain', 'Primary domain', false],
  ['notificationEmail', 'Notification e-mail', false],
  ['contact.name', 'Contact name', false],
  ['contact.email', 'Contact e-mail', true],
  ['contact.phone', 'Contact phone', false],
  ['contact.cellPhone', 'Contact mobile', false],
  ['address.street', 'Street', false],
  ['address.postalCode', 'Postal code', false],
  ['address.city', 'City', false],
  ['address.countryCode', 'Country code', true],
] as const;

type FieldKey = (typeof FIELDS)[number][0];

/** Dot paths → the nested request body of spec §2.1. */
function toBody(values: Record<FieldKey, string>): unknown {
  const body: Record<string, unknown> = { contact: {}, address: {} };
  for (const [path, value] of Object.entries(values)) {
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail) (body[head] as Record<string, string>)[tail] = value;
    else body[head] = value;
  }
  return body;
}

/**
 * Creates an organization. Checked here first (required: name, contact e-mail, country — see README; a customer
 * number someone already has is a warning to confirm), then by the service, whose field errors land beside the same
 * fields.
 */
export function OrganizationForm({
  profileId,
  holderOf,
  onCreated,
  onCancel,
}: {
  profileId: string;
  /** Who already has a customer number (the service's list, the newest saved month), or null. */
  holderOf: (customerNumber: string) => { name: string; where: string } | null;
  onCreated: (organization: OrganizationSummary) => void;
  onCancel: () => void;
}): React.JSX.Element {
  const [values, setValues] = useState(() => Object.fromEntries(FIELDS.map(([key]) => [key, ''])) as Record<FieldKey, string>);
  const [errors, setErrors] = useState<Record<string, string>>({});
  /** The customer number warned about as already used: submitting it unchanged creates the organization anyway. */
  const [warned, setWarned] = useState<string | null>(null);
  const confirming = warned !== null && warned === values.customerNumber.trim();
  const {
    run,
    busy: saving,
    error: failure,
    setError,
  } = useAction({
    onError: (error) => {
      if (error instanceof RequestError) setErrors(error.fields);
    },
  });

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = OrganizationInput.safeParse(toBody(values));
    if (!parsed.success) {
      setErrors(fieldErrorsFromZod(parsed.error));
      setError('Some fields need attention before the organization can be created.');
      return;
    }
    const customerNumber = values.customerNumber.trim();
    const holder = holderOf(customerNumber);
    if (holder && !confirming) {
      setWarned(customerNumber);
      setErrors({
        customerNumber: `Customer number ${customerNumber} is already used by ${holder.name} (${holder.where}). Choose another, or create it anyway.`,
      });
      return;
    }
    setErrors({});
    await run(async () => onCreated(await call('organizations:create', { profileId, organization: parsed.data })));
  };

  return (
    <form className="panel form" onSubmit={(event) => void submit(event)} aria-label="New organization" noValidate>
      <h2>New organization</h2>
      <div className="form__grid">
        {FIELDS.map(([key, label, required]) => (
          <Field
            key={key}
            name={key}
            label={label}
            value={values[key]}
            required={required}
            error={errors[key]}
            onChange={(value) => setValues((current) => ({ ...current, [key]: value }))}
            {...(key === 'address.countryCode' ? { placeholder: 'SE' } : {})}
            {...(key === 'primaryDomain' ? { placeholder: 'contoso.com' } : {})}
          />
        ))}
      </div>
      <ErrorNote message={failure} />
      <FormActions busy={saving} label={confirming ? 'Create anyway' : 'Create organization'} busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
