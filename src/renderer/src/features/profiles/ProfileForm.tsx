import { useState } from 'react';
import type { ProfileView } from '@shared/schemas/profile';
import { ProfileFields } from '@shared/schemas/profile';
import { fieldErrorsFromZod } from '@shared/errors';
import { call, RequestError } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { Field } from '@renderer/components/Field';
import { FormActions } from '@renderer/components/FormActions';
import { useAction } from '@renderer/hooks/use-action';
import { userLocale } from '@renderer/components/format-time';
import { nameOrderOfLocale } from '@shared/model/name-order';

interface Props {
  profile?: ProfileView | undefined;
  onSaved: (profile: ProfileView) => void;
  onCancel: () => void;
}

const EMPTY = { name: '', baseUrl: '', clientId: 'ro.customer.client', username: '', resellerId: '', sellerId: '' };

/**
 * Adds or edits a profile. Secrets are write-only here: typed, sent once to the main process for the keychain,
 * and never read back; leaving them empty when editing keeps the stored ones.
 */
export function ProfileForm({ profile, onSaved, onCancel }: Props): React.JSX.Element {
  const [fields, setFields] = useState(() =>
    profile
      ? {
          name: profile.name,
          baseUrl: profile.baseUrl,
          clientId: profile.clientId,
          username: profile.username,
          resellerId: profile.resellerId,
          sellerId: profile.sellerId,
        }
      : EMPTY,
  );
  // Kept as it is (set in Settings' table of profiles); a new profile sorts names as the user's language does.
  const nameOrder = profile ? profile.nameOrder : nameOrderOfLocale(userLocale);
  // A profile for a machine with no keychain reads its secrets from two environment variables at each use.
  const [envPrefix, setEnvPrefix] = useState<string | null>(profile?.secretsFromEnv?.prefix ?? null);
  const [apiSecret, setApiSecret] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The service's field messages land beside the same fields.
  const {
    run,
    busy: saving,
    error: failure,
    clearError,
  } = useAction({
    onError: (error) => {
      if (error instanceof RequestError) setErrors(error.fields);
    },
  });
  const isNew = !profile;
  const update = (key: keyof typeof fields) => (value: string) => setFields((current) => ({ ...current, [key]: value }));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    clearError();
    const parsed = ProfileFields.safeParse({
      ...fields,
      ...(nameOrder ? { nameOrder } : {}),
      ...(envPrefix !== null ? { secretsFromEnv: { prefix: envPrefix } } : {}),
    });
    const localErrors = parsed.success ? {} : fieldErrorsFromZod(parsed.error);
    const needsSecrets = envPrefix === null && (isNew || Boolean(profile.secretsFromEnv));
    if (needsSecrets && !apiSecret) localErrors.apiSecret = 'is required';
    if (needsSecrets && !password) localErrors.password = 'is required';
    setErrors(localErrors);
    if (!parsed.success || Object.keys(localErrors).length) return;
    await run(async () => {
      const saved = await call('profiles:save', {
        ...(profile ? { id: profile.id } : {}),
        fields: parsed.data,
        ...(apiSecret && envPrefix === null ? { apiSecret } : {}),
        ...(password && envPrefix === null ? { password } : {}),
      });
      setApiSecret('');
      setPassword('');
      onSaved(saved);
    });
  };

  const secretHint = (isSet: boolean | undefined) =>
    isSet ? 'Stored in the OS keychain. Leave empty to keep it.' : 'Stored in the OS keychain, never in a file.';
  return (
    <form className="panel form" onSubmit={(event) => void submit(event)} aria-label={isNew ? 'New profile' : `Edit profile ${profile.name}`} noValidate>
      <h2>{isNew ? 'New profile' : `Edit ${profile.name}`}</h2>
      <div className="form__grid">
        <Field label="Name" value={fields.name} onChange={update('name')} error={errors.name} required placeholder="Production" />
        <Field
          label="Base URL"
          type="url"
          value={fields.baseUrl}
          onChange={update('baseUrl')}
          error={errors.baseUrl}
          required
          placeholder="https://billing.example.com"
        />
        <Field label="Client ID" value={fields.clientId} onChange={update('clientId')} error={errors.clientId} required />
        <Field label="Username" value={fields.username} onChange={update('username')} error={errors.username} required autoComplete="username" />
        <Field label="Reseller ID" value={fields.resellerId} onChange={update('resellerId')} error={errors.resellerId} required placeholder="GUID" />
        <Field label="Seller ID" value={fields.sellerId} onChange={update('sellerId')} error={errors.sellerId} placeholder="GUID (needed for consumption)" />
        <fieldset className="form__wide choice">
          <legend>Secrets</legend>
          <label>
            <input type="radio" name="secrets" checked={envPrefix === null} onChange={() => setEnvPrefix(null)} /> In the OS keychain
          </label>
          <label>
            <input type="radio" name="secrets" checked={envPrefix !== null} onChange={() => setEnvPrefix(profile?.secretsFromEnv?.prefix ?? 'CLOSEBOOK')} />{' '}
            From the environment, each time (for a machine with no keychain; never stored)
          </label>
        </fieldset>
        {envPrefix === null ? (
          <>
            <Field
              label="API secret"
              type="password"
              value={apiSecret}
              onChange={setApiSecret}
              error={errors.apiSecret}
              required={isNew}
              hint={secretHint(profile?.hasApiSecret)}
              autoComplete="new-password"
            />
            <Field
              label="Password"
              type="password"
              value={password}
              onChange={setPassword}
              error={errors.password}
              required={isNew}
              hint={secretHint(profile?.hasPassword)}
              autoComplete="new-password"
            />
          </>
        ) : (
          <Field
            label="Variable prefix"
            value={envPrefix}
            onChange={(value) => setEnvPrefix(value.toUpperCase())}
            error={errors['secretsFromEnv.prefix']}
            required
            hint={`Reads ${envPrefix || 'PREFIX'}_API_SECRET and ${envPrefix || 'PREFIX'}_PASSWORD from the environment Closebook is started in.`}
          />
        )}
      </div>
      <ErrorNote message={failure} />
      <FormActions busy={saving} label="Save profile" busyLabel="Saving…" onCancel={onCancel} />
    </form>
  );
}
