import { useCallback, useEffect, useState } from 'react';
import type { TeamFetch, TeamLedgerView } from '@shared/schemas/team-ledger';
import { schemaBehind } from '@shared/model/team-schema';
import { bridge, call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { Field } from '@renderer/components/Field';
import { countOf, formatCount } from '@renderer/components/format-number';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { endedBefore, fetchedBeforeEndText } from '@shared/model/period-end';
import { monthLabel } from '../close/month-label';

const STATE_WORDS: Record<TeamFetch['state'], string> = { draft: 'Draft', prepared: 'Prepared', approved: 'Approved' };

/** How to connect: the address (never with a password in it) and the password, which goes to the keychain. */
function ConnectForm({ onConnected }: { onConnected: (view: TeamLedgerView) => void }): React.JSX.Element {
  const [url, setUrl] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const connect = async (event: React.FormEvent) => {
    event.preventDefault();
    const view = await action.run(() => call('team:connect', { url, password }), 'connect');
    if (view) {
      setPassword('');
      onConnected(view);
    }
  };
  return (
    <form className="form team-ledger__form" onSubmit={(event) => void connect(event)} aria-label="Connect a team ledger">
      <p className="muted">
        Closing the month as a team: each person signs in to the team&apos;s PostgreSQL as their own database role, and the database enforces who may prepare
        and approve. Without one, this workstation keeps the close on its own (one person: Prepared is as far as it goes).
      </p>
      <Field
        label="Address"
        value={url}
        onChange={setUrl}
        required
        placeholder="postgresql://your-role@db.example.com/closebook"
        hint="From IT. Off this machine the server's certificate is always checked; add ?sslrootcert=FILE for the team's own CA."
      />
      <Field
        label="Password"
        type="password"
        value={password}
        onChange={setPassword}
        required
        autoComplete="current-password"
        hint="Kept in the OS keychain."
      />
      <div className="form__actions">
        <button type="submit" className="primary" disabled={action.busy || !url.trim() || !password}>
          {action.busy ? 'Signing in…' : 'Connect'}
        </button>
      </div>
      <ErrorNote message={action.error} />
    </form>
  );
}

/** The months on the team ledger, newest first: their close state, who shared them and whether they are here. */
function TeamMonths({ months }: { months: TeamFetch[] }): React.JSX.Element {
  if (months.length === 0) return <p className="muted">No month is on the team ledger yet: a month fetched here is shared with it at once.</p>;
  return (
    <table className="grid" aria-label="Months on the team ledger">
      <thead>
        <tr>
          <th>Month</th>
          <th>State</th>
          <th className="num">Lines</th>
          <th>Shared by</th>
          <th>On this workstation</th>
        </tr>
      </thead>
      <tbody>
        {[...months].reverse().map((fetch) => (
          <tr key={`${fetch.startDate}|${fetch.contentHash}`}>
            <td>
              {monthLabel(fetch)}
              {fetch.signed ? <span className="tag">signed</span> : null}
              {endedBefore(fetch.endDate, fetch.fetchedAt) ? null : (
                <span className="tag" title={`${fetchedBeforeEndText(fetch.endDate, fetch.fetchedAt)}.`}>
                  partial
                </span>
              )}
            </td>
            <td>{STATE_WORDS[fetch.state]}</td>
            <td className="num">{formatCount(fetch.lines)}</td>
            <td title={`From ${fetch.workstation}`}>
              {fetch.storedBy}, {formatDateTime(fetch.storedAt)}
            </td>
            <td>{fetch.localReportId ? 'Yes' : <span className="muted">Not yet</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Settings → Team ledger: connect (the password goes to the keychain through the main process and never comes
 * back), who you are there and what you may do, the months on it, bringing them here, and disconnecting.
 */
export function TeamLedgerPanel(): React.JSX.Element {
  const [view, setView] = useState<TeamLedgerView | null>(null);
  const action = useAction();
  const [pulled, setPulled] = useState<string | null>(null);
  const { run } = action;
  const load = useCallback(async () => {
    const answer = await run(() => call('team:status', {}), 'status');
    if (answer) setView(answer);
  }, [run]);
  useEffect(() => void load(), [load]);
  useEffect(() => bridge.on('team:changed', () => void load()), [load]);

  const pull = async () => {
    setPulled(null);
    const done = await action.run(() => call('team:pull', {}), 'pull');
    if (done) {
      setPulled(`${formatCount(done.pulled)} brought here, ${formatCount(done.present)} here already.`);
      await load();
    }
  };
  const moveIn = async () => {
    setPulled(null);
    const moved = await action.run(() => call('team:move-in', {}), 'move-in');
    if (moved) {
      setPulled(
        `Moved in: ${countOf(moved.fetchesMoved, 'fetch', 'fetches')} (${formatCount(moved.fetchesThere)} there already) and ${countOf(moved.reviewsMoved, 'review')} (${formatCount(moved.reviewsThere)} there already). Nothing was prepared or approved by the move.${moved.left.length ? ` Left: ${moved.left.join(' ')}` : ''}`,
      );
      await load();
    }
  };
  const disconnect = async () => {
    const answer = await action.run(() => call('team:disconnect', {}), 'disconnect');
    if (answer) setView(answer);
  };

  const schemaVersion = view?.connected ? (view.signedIn?.schemaVersion ?? null) : null;
  const behind = schemaVersion === null ? null : schemaBehind(schemaVersion);
  return (
    <section className="panel team-ledger" aria-labelledby="team-ledger-title">
      <h2 id="team-ledger-title">Team ledger</h2>
      {view === null ? (
        <p className="muted">{action.busy ? 'Reading…' : ''}</p>
      ) : !view.connected ? (
        <ConnectForm onConnected={setView} />
      ) : (
        <>
          <p data-testid="team-ledger-status">
            {view.signedIn ? (
              <>
                You are <strong>{view.signedIn.user}</strong> on {view.address.host}:{view.address.port}/{view.address.database} (PostgreSQL{' '}
                {view.signedIn.server}, {view.address.tls === 'verify-full' ? 'TLS, certificate checked' : 'no TLS: this machine only'}). Your roles:{' '}
                {view.signedIn.roles.length ? view.signedIn.roles.map((role) => role.replace(/^closebook_/, '')).join(', ') : "none of Closebook's (ask IT)"}.
              </>
            ) : (
              <span className="warn-text">
                {view.address.user} on {view.address.host}:{view.address.port}/{view.address.database}: {view.problem}
              </span>
            )}
          </p>
          {behind ? (
            <p className="warn-text" role="note">
              The team ledger&apos;s schema is version {view.signedIn?.schemaVersion}, {behind}.
            </p>
          ) : null}
          {view.signedIn ? <TeamMonths months={view.months} /> : null}
          <div className="form__actions">
            {view.signedIn ? (
              <button type="button" className="primary" onClick={() => void pull()} disabled={action.busy}>
                {action.running === 'pull' ? 'Bringing months here…' : 'Bring the months here'}
              </button>
            ) : null}
            {view.signedIn ? (
              <button
                type="button"
                onClick={() => void moveIn()}
                disabled={action.busy}
                title="Shares every month saved on this workstation and its reviews with the team ledger; nothing is prepared or approved by it"
              >
                {action.running === 'move-in' ? 'Moving in…' : 'Move this workstation’s months in'}
              </button>
            ) : null}
            <button type="button" onClick={() => void load()} disabled={action.busy}>
              Read again
            </button>
            <button type="button" className="danger" onClick={() => void disconnect()} disabled={action.busy}>
              Disconnect
            </button>
          </div>
          {pulled ? <p role="status">{pulled}</p> : null}
        </>
      )}
      <ErrorNote message={action.error} />
    </section>
  );
}
