import { useCallback, useEffect, useRef, useState } from 'react';
import { type ConnectionTestProgress, describeConnectionTest } from '@shared/connection-test-progress';
import type { ProfileView } from '@shared/schemas/profile';
import { bridge, call, errorMessage } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { KeepButton } from '@renderer/components/KeepButton';
import { useAction } from '@renderer/hooks/use-action';
import { useRowFocus } from '@renderer/hooks/keyboard-focus';
import { useNow } from '@renderer/hooks/use-now';
import { useAppStore } from '@renderer/stores/app-store';
import { ProfileForm } from './ProfileForm';
import { NAME_ORDERS, NameOrder } from '@shared/model/name-order';
import { TeamLedgerPanel } from './TeamLedgerPanel';
import { lastMonth } from '../reports/format';
import { monthLabel } from '../close/month-label';
import { useReportJobs } from '../reports/report-jobs-store';

/** A month's name and year in the user's words ("October 2026"), from its first day. */

type TestState =
  { profileId: string; status: 'running'; progress: ConnectionTestProgress | null } | { profileId: string; status: 'ok' | 'failed'; message: string };

/** Settings: connection profiles (add, edit, delete, test; the way into demo mode) and the team ledger. */
export function ProfilesScreen(): React.JSX.Element {
  const profiles = useAppStore((state) => state.profiles);
  const activeProfileId = useAppStore((state) => state.activeProfileId);
  const info = useAppStore((state) => state.info);
  const load = useAppStore((state) => state.load);
  const applyProfiles = useAppStore((state) => state.applyProfiles);
  const setActiveProfile = useAppStore((state) => state.setActiveProfile);
  const [editing, setEditing] = useState<ProfileView | 'new' | null>(null);
  const [test, setTest] = useState<TestState | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const { run, running, error: failure } = useAction();
  const startingDemo = running === 'demo';

  const go = useAppStore((state) => state.go);
  const requestAndOpen = useReportJobs((state) => state.requestAndOpen);
  /** The demo profile just started: its next step (fetch and open last month) is shown, in view and focused. */
  const [demoStarted, setDemoStarted] = useState<ProfileView | null>(null);
  const nextStep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!demoStarted) return;
    nextStep.current?.scrollIntoView({ block: 'nearest' });
    nextStep.current?.focus();
  }, [demoStarted]);

  const startDemo = () =>
    run(async () => {
      setDemoStarted(await call('demo:start', {}));
      await load();
    }, 'demo');

  const openDemoMonth = (demo: ProfileView) =>
    run(async () => {
      await requestAndOpen(demo.id, lastMonth());
      setDemoStarted(null);
      go('reports');
    }, 'demo-month');

  const testRunning = test?.status === 'running';
  const now = useNow(testRunning);
  useEffect(() => {
    if (!testRunning) return;
    return bridge.on('profiles:test-progress', (progress) =>
      setTest((current) => (current?.status === 'running' && current.profileId === progress.profileId ? { ...current, progress } : current)),
    );
  }, [testRunning]);

  const testConnection = async (profile: ProfileView) => {
    setTest({ profileId: profile.id, status: 'running', progress: null });
    try {
      const result = await call('profiles:test', { profileId: profile.id });
      setTest({ profileId: profile.id, status: 'ok', message: `Connected: ${result.organizationCount} organizations (${Math.round(result.elapsedMs)} ms).` });
    } catch (error) {
      setTest({ profileId: profile.id, status: 'failed', message: errorMessage(error) });
    }
  };

  const setNameOrder = (profileId: string, nameOrder: NameOrder) =>
    run(async () => applyProfiles(await call('profiles:set-name-order', { profileId, nameOrder })), 'name-order');

  // The keyboard through the table: each step replaces the control that took it (Use goes once in use; Delete turns
  // into Keep). Asked to delete, it is on Keep; kept, back on Delete; deleted, on the next profile; a form closed, on
  // what opened it.
  const screen = useRef<HTMLElement>(null);
  const addProfile = useRef<HTMLButtonElement>(null);
  const { handOn, focusOn } = useRowFocus(
    screen,
    useCallback(() => addProfile.current, []),
  );
  const closeForm = () => {
    if (editing === 'new') addProfile.current?.focus();
    else if (editing) focusOn(editing.id, 'edit');
    setEditing(null);
  };

  const remove = (profileId: string) =>
    handOn(profileId, async () => {
      setConfirmDelete(null);
      return run(async () => {
        applyProfiles(await call('profiles:delete', { profileId }));
        return true;
      }, 'delete');
    });
  const use = (profileId: string) =>
    handOn(profileId, async () => {
      await setActiveProfile(profileId);
      return true;
    });

  return (
    <section className="screen" aria-labelledby="profiles-title" ref={screen}>
      <div className="screen__header">
        <h1 id="profiles-title">Settings</h1>
        <div className="toolbar">
          <button type="button" onClick={() => setEditing('new')} className="primary" ref={addProfile}>
            Add profile
          </button>
          {!profiles.some((profile) => profile.kind === 'demo') ? (
            <button type="button" onClick={() => void startDemo()} disabled={startingDemo}>
              {startingDemo ? 'Starting demo…' : 'Try the demo service'}
            </button>
          ) : null}
        </div>
      </div>

      {profiles.length === 0 && editing === null ? (
        <div className="panel welcome">
          <h2>Welcome to Closebook</h2>
          <p>
            Connect to your billing service with a profile, or try Closebook first on the built-in demo service: it has made-up organizations, a monthly billing
            report and metered subscriptions, and needs no account.
          </p>
          <div className="form__actions">
            <button type="button" className="primary" onClick={() => void startDemo()} disabled={startingDemo}>
              {startingDemo ? 'Starting demo…' : 'Try the demo service'}
            </button>
            <button type="button" onClick={() => setEditing('new')}>
              Add your own profile
            </button>
          </div>
        </div>
      ) : null}

      {demoStarted ? (
        <div className="panel welcome" role="status" aria-label="Next step">
          <h2>The demo service is running</h2>
          <p>
            It has made-up organizations and their billing. Next, fetch its report of last month ({monthLabel(lastMonth())}): it takes a few seconds, and opens
            as soon as it is saved.
          </p>
          <div className="form__actions">
            <button ref={nextStep} type="button" className="primary" onClick={() => void openDemoMonth(demoStarted)} disabled={running === 'demo-month'}>
              Fetch and open last month
            </button>
            <button type="button" className="link" onClick={() => setDemoStarted(null)}>
              Not now
            </button>
          </div>
        </div>
      ) : null}

      {info && !info.keychainAvailable ? (
        <ErrorNote message="No OS keychain answers on this computer. Closebook stores secrets only in the keychain, so profiles cannot be saved until one is available (the demo service works without it)." />
      ) : null}
      <ErrorNote message={failure} />

      {editing !== null ? (
        <ProfileForm
          profile={editing === 'new' ? undefined : editing}
          onCancel={closeForm}
          onSaved={() => {
            closeForm();
            void load();
          }}
        />
      ) : null}

      {profiles.length > 0 ? (
        <table className="grid grid--wrap" aria-label="Profiles">
          <thead>
            <tr>
              <th>Name</th>
              <th>Service</th>
              <th>Username</th>
              <th>Secrets</th>
              <th>Names sorted as</th>
              <th className="actions-col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {profiles.map((profile) => (
              <tr key={profile.id} aria-current={profile.id === activeProfileId ? 'true' : undefined} data-focus-row={profile.id}>
                <td>
                  <span>{profile.name}</span>
                  {profile.id === activeProfileId ? <span className="tag">in use</span> : null}
                  {profile.kind === 'demo' ? <span className="tag tag--demo">demo</span> : null}
                </td>
                <td className="mono">{profile.kind === 'demo' ? 'Built-in demo service' : profile.baseUrl}</td>
                <td>{profile.username}</td>
                <td>
                  <SecretsWhere profile={profile} />
                </td>
                <td>
                  <select
                    aria-label={`Names sorted as, ${profile.name}`}
                    title="The order of customers, services and subscriptions in this profile's reports, Invoicing, workbooks and CSV files"
                    value={profile.namesSortedAs}
                    onChange={(event) => void setNameOrder(profile.id, NameOrder.parse(event.target.value))}
                  >
                    {Object.entries(NAME_ORDERS).map(([id, { language, sample }]) => (
                      <option key={id} value={id}>
                        {language} ({sample})
                      </option>
                    ))}
                  </select>
                </td>
                <td className="actions-col">
                  {profile.id !== activeProfileId ? (
                    <button type="button" className="link" onClick={() => void use(profile.id)}>
                      Use
                    </button>
                  ) : null}
                  <button
                    type="button"
                    className="link"
                    onClick={() => void testConnection(profile)}
                    disabled={test?.profileId === profile.id && test.status === 'running'}
                  >
                    Test connection
                  </button>
                  {profile.kind === 'service' ? (
                    <button type="button" className="link" onClick={() => setEditing(profile)} data-control="edit">
                      Edit
                    </button>
                  ) : null}
                  {confirmDelete === profile.id ? (
                    <span className="confirm">
                      Delete {profile.name} and its secrets?{' '}
                      <button type="button" className="link danger" onClick={() => void remove(profile.id)}>
                        Delete
                      </button>
                      <KeepButton
                        onKeep={() => {
                          setConfirmDelete(null);
                          focusOn(profile.id, 'delete');
                        }}
                      />
                    </span>
                  ) : (
                    <button type="button" className="link danger" onClick={() => setConfirmDelete(profile.id)} data-control="delete">
                      Delete
                    </button>
                  )}
                  {test?.profileId === profile.id ? (
                    <div className={`test-result test-result--${test.status}`} role="status" data-testid="connection-test">
                      {test.status !== 'running' ? test.message : test.progress ? describeConnectionTest(test.progress, now) : 'Testing…'}
                      {test.status === 'running' && test.progress?.retry ? <div className="test-result__reason">{test.progress.retry.reason}</div> : null}
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <TeamLedgerPanel />
    </section>
  );
}

/** Where a profile's secrets are, and whether they can be used now. */
function SecretsWhere({ profile }: { profile: ProfileView }): React.JSX.Element {
  if (profile.kind === 'demo') return <>Public demo credentials</>;
  const ready = profile.hasApiSecret && profile.hasPassword;
  if (profile.secretsFromEnv) {
    const { prefix } = profile.secretsFromEnv;
    return (
      <span title={`Read from ${prefix}_API_SECRET and ${prefix}_PASSWORD each time the profile is used; never stored.`}>
        Secrets from the environment
        {ready ? null : (
          <span className="warn-text">
            {' '}
            — {prefix}_API_SECRET and {prefix}_PASSWORD are not set where Closebook was started
          </span>
        )}
      </span>
    );
  }
  return ready ? <>In keychain</> : <span className="warn-text">Missing — edit to enter</span>;
}
