import { useId, useState } from 'react';
import type { MonthCloseView } from '@shared/schemas/month-close';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { formatCount } from '@renderer/components/format-number';

const NAME_KEY = 'closebook.sign-off-name';

/** The name typed at the last sign-off on this computer (a convenience; the OS user is recorded anyway). */
function rememberedName(): string {
  try {
    return window.localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

function rememberName(name: string): void {
  try {
    window.localStorage.setItem(NAME_KEY, name);
  } catch {
    // Not kept: the field is simply empty next time.
  }
}

interface Props {
  view: MonthCloseView;
  openCount: number;
  onSignOff: (name: string) => Promise<void>;
  onReopen: (reason: string) => Promise<void>;
}

/** The month's attestation: the name to sign with (only when nothing is open), or who signed, the hash, and reopening with a reason. */
export function SignOffBox({ view, openCount, onSignOff, onReopen }: Props): React.JSX.Element {
  const [name, setName] = useState(rememberedName);
  const [reason, setReason] = useState('');
  const [reopening, setReopening] = useState(false);
  const action = useAction();
  const nameId = useId();
  const reasonId = useId();
  const { signOff } = view;

  if (signOff) {
    const reopen = async (event: React.FormEvent) => {
      event.preventDefault();
      const done = await action.run(async () => {
        await onReopen(reason.trim());
        return true;
      }, 'reopen');
      if (done) {
        setReopening(false);
        setReason('');
      }
    };
    return (
      <div className="signoff signoff--signed" aria-label="Sign-off" role="region">
        <p className="signoff__who">
          Signed by <strong>{signOff.signedBy}</strong> <span className="muted">as computer account {signOff.osUser}</span>
        </p>
        <p className="signoff__hash">
          <span className="muted">Content hash</span>{' '}
          <code className="mono" title={signOff.contentHash} data-testid="content-hash">
            {signOff.contentHash}
          </code>
        </p>
        {reopening ? (
          <form className="signoff__form" onSubmit={(event) => void reopen(event)}>
            <label htmlFor={reasonId} className="muted">
              Why reopen?
            </label>
            <input
              id={reasonId}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              placeholder="e.g. credit note from the service"
              maxLength={2000}
              autoFocus
            />
            <button type="submit" className="primary" disabled={!reason.trim() || action.busy}>
              {action.busy ? 'Reopening…' : 'Reopen the month'}
            </button>
            <button type="button" onClick={() => setReopening(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <button
            type="button"
            onClick={() => setReopening(true)}
            title="Reviews are locked while the month is signed off; reopening unlocks them and is logged with your reason"
          >
            Reopen…
          </button>
        )}
        <ErrorNote message={action.error} />
      </div>
    );
  }

  const blocked = openCount > 0;
  const sign = async (event: React.FormEvent) => {
    event.preventDefault();
    const typed = name.trim();
    const done = await action.run(async () => {
      await onSignOff(typed);
      return true;
    }, 'sign');
    if (done) rememberName(typed);
  };
  return (
    <form className="signoff" aria-label="Sign-off" onSubmit={(event) => void sign(event)}>
      <label htmlFor={nameId} className="muted">
        Sign off as
      </label>
      <input id={nameId} value={name} onChange={(event) => setName(event.target.value)} placeholder="Your name" maxLength={120} autoComplete="name" />
      <button type="submit" className="primary" disabled={blocked || !name.trim() || action.busy} aria-describedby={`${nameId}-why`}>
        {action.busy ? 'Signing off…' : 'Sign off the month'}
      </button>
      <p id={`${nameId}-why`} className="signoff__why muted">
        {blocked
          ? `${formatCount(openCount)} ${openCount === 1 ? 'exception is' : 'exceptions are'} still open: accept each with a note, or resolve it, first.`
          : 'Nothing is open. Signing off records your name, your computer account, the time and a hash of the lines, and locks the reviews.'}
      </p>
      <ErrorNote message={action.error} />
    </form>
  );
}
