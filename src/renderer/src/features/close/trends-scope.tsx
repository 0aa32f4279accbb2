import { useEffect, useState } from 'react';
import type { TrendScope, TrendScopes } from '@shared/schemas/month-close';
import { formatCount } from '@renderer/components/format-number';
import { CHOICES_LISTED, matchingChoices } from './trends-chart';

type Kind = TrendScope['kind'];

const KINDS: { kind: Kind; label: string; noun: string; plural: 'organizations' | 'services' | 'groups' | null }[] = [
  { kind: 'all', label: 'All customers', noun: '', plural: null },
  { kind: 'organization', label: 'One customer', noun: 'customer', plural: 'organizations' },
  { kind: 'service', label: 'One service', noun: 'service', plural: 'services' },
  { kind: 'group', label: 'One organization group', noun: 'group', plural: 'groups' },
];

/**
 * Which trend to show: everything, or one customer, service or group, picked from a list that typing narrows (by name
 * or customer number). A scope is chosen only once its entry is picked; until then the last one stays on screen.
 */
export function TrendScopePicker({
  scopes,
  scope,
  onChange,
}: {
  scopes: TrendScopes | null;
  scope: TrendScope;
  onChange: (scope: TrendScope) => void;
}): React.JSX.Element {
  const [kind, setKind] = useState<Kind>(scope.kind);
  const [text, setText] = useState('');
  useEffect(() => setKind(scope.kind), [scope.kind]);
  const spec = KINDS.find((entry) => entry.kind === kind) ?? (KINDS[0] as (typeof KINDS)[number]);
  const choices = spec.plural && scopes ? scopes[spec.plural] : [];
  const matches = matchingChoices(choices, text);
  const chosen = scope.kind === kind && scope.kind !== 'all' ? scope.key : '';

  const pickKind = (next: Kind) => {
    setKind(next);
    setText('');
    if (next === 'all') onChange({ kind: 'all' });
  };

  return (
    <div className="trend-scope" role="group" aria-label="What the trend shows">
      <select aria-label="Trend of" value={kind} onChange={(event) => pickKind(event.target.value as Kind)}>
        {KINDS.map((entry) => (
          <option key={entry.kind} value={entry.kind}>
            {entry.label}
          </option>
        ))}
      </select>
      {spec.plural ? (
        <>
          <input
            type="search"
            aria-label={`Search ${spec.noun}s`}
            data-shortcut="filter"
            placeholder={spec.kind === 'organization' ? 'Name or customer number…' : `Search ${spec.noun}s…`}
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <select
            aria-label={`Choose ${spec.noun}`}
            value={chosen}
            disabled={!scopes}
            onChange={(event) => event.target.value && onChange({ kind: kind as Exclude<Kind, 'all'>, key: event.target.value })}
          >
            <option value="" disabled>
              {scopes ? `Choose a ${spec.noun} (${formatCount(matches.length)} of ${formatCount(choices.length)})` : 'Loading…'}
            </option>
            {matches.slice(0, CHOICES_LISTED).map((choice) => (
              <option key={choice.key} value={choice.key}>
                {choice.detail ? `${choice.label} — ${choice.detail}` : choice.label}
              </option>
            ))}
            {matches.length > CHOICES_LISTED ? (
              <option value="" disabled>
                {formatCount(matches.length - CHOICES_LISTED)} more: type to narrow
              </option>
            ) : null}
          </select>
        </>
      ) : null}
    </div>
  );
}
