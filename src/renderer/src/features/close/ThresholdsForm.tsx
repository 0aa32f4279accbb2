import { useId, useState } from 'react';
import { CheckThresholds } from '@shared/schemas/month-close';
import { call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { formatCount } from '@renderer/components/format-number';
import { readTypedDecimal } from '@shared/typed-number';

interface Props {
  profileId: string;
  profileName: string;
  /** The thresholds are the team's (a team ledger is connected), not the profile's. */
  team: boolean;
  thresholds: CheckThresholds;
  /** The thresholds were saved: the month's checks are read again with them. */
  onSaved: () => Promise<void>;
}

/** A threshold as typed (a decimal comma or point, by the rule of every typed number), or null when it is not a number. */
function typedValue(text: string): number | null {
  const reading = readTypedDecimal(text);
  return 'decimal' in reading ? Number(reading.decimal) : null;
}

/** The field's problem in words, or undefined (the contract's own bounds). */
function rangeError(text: string, min: number, max: number): string | undefined {
  const value = typedValue(text);
  if (text.trim() === '' || value === null) return 'Enter a number';
  return value < min || value > max ? `Between ${min} and ${formatCount(max)}` : undefined;
}

function NumberField({
  label,
  hint,
  value,
  onChange,
  error,
  unit,
}: {
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  unit: string;
}): React.JSX.Element {
  const id = useId();
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <span className="thresholds__input">
        <input
          id={id}
          inputMode="decimal"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={Boolean(error)}
          aria-describedby={`${id}-hint`}
        />
        <span className="muted">{unit}</span>
      </span>
      {error ? (
        <span className="field__error" role="alert">
          {error}
        </span>
      ) : null}
      <span className="field__hint" id={`${id}-hint`}>
        {hint}
      </span>
    </div>
  );
}

/** The check thresholds of the report's profile: how far a margin may stray and a quantity may jump before it is an exception. */
export function ThresholdsForm({ profileId, profileName, thresholds, team, onSaved }: Props): React.JSX.Element {
  const [margin, setMargin] = useState(String(thresholds.marginDeviationPoints));
  const [jump, setJump] = useState(String(thresholds.quantityJumpPercent));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const action = useAction();

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const found = { marginDeviationPoints: rangeError(margin, 1, 100), quantityJumpPercent: rangeError(jump, 1, 100_000) };
    const parsed = CheckThresholds.safeParse({ marginDeviationPoints: typedValue(margin), quantityJumpPercent: typedValue(jump) });
    setErrors(Object.fromEntries(Object.entries(found).filter(([, message]) => message)) as Record<string, string>);
    if (found.marginDeviationPoints || found.quantityJumpPercent || !parsed.success) return;
    const done = await action.run(async () => {
      await call('close:thresholds', { profileId, thresholds: parsed.data });
      await onSaved();
      return true;
    });
    if (done) setSaved(true);
  };

  return (
    <form className="thresholds panel" aria-label="Check thresholds" onSubmit={(event) => void save(event)} noValidate>
      <h4>{team ? "The team's check thresholds" : `Check thresholds for ${profileName || 'this profile'}`}</h4>
      <p className="muted">
        {team ? 'Kept on the team ledger: every workstation finds exceptions with them.' : 'They apply to every month fetched with this profile.'} Saving checks
        this month again with them; reviews already made stay with their exceptions.
      </p>
      <div className="thresholds__fields">
        <NumberField
          label="Margin deviation"
          unit="percentage points"
          hint="A customer's margin % this far from the service's usual margin (its median over at least 5 organizations) is an exception."
          value={margin}
          onChange={setMargin}
          error={errors.marginDeviationPoints}
        />
        <NumberField
          label="Quantity jump"
          unit="%"
          hint="A product's quantity rising more than this since last month is an exception."
          value={jump}
          onChange={setJump}
          error={errors.quantityJumpPercent}
        />
      </div>
      <div className="form__actions">
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save thresholds'}
        </button>
        {saved ? (
          <span className="notice" role="status">
            Saved; the month was checked again.
          </span>
        ) : null}
      </div>
      <ErrorNote message={action.error} />
    </form>
  );
}
