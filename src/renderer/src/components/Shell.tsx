import { useEffect } from 'react';
import type { ConnectionState } from '@shared/contract';
import { SCREENS, useActiveProfile, useAppStore } from '../stores/app-store';
import { formatClock, formatDateTime } from './format-time';

const CONNECTION_WORDS: Record<ConnectionState['state'], [label: string, tone: string]> = {
  online: ['Online', 'online'],
  offline: ['Offline', 'offline'],
  'auth-failed': ['Sign-in refused', 'offline'],
  'service-error': ['Service error', 'warn'],
  unknown: ['Not checked yet', 'unknown'],
};

/** The active profile's service as its last call of any kind found it (report polls included), and when. */
function ConnectionIndicator(): React.JSX.Element {
  const profile = useActiveProfile();
  const connection = useAppStore((state) => (profile ? state.connection[profile.id] : undefined));
  const [label, tone] = !profile ? ['No profile', 'unknown'] : CONNECTION_WORDS[connection?.state ?? 'unknown'];
  const when = connection ? `Last call to the service: ${formatDateTime(connection.at)}` : 'No call to the service yet in this session';
  return (
    <span className="connection" title={connection?.message ? `${connection.message}\n${when}` : when}>
      <span className={`status-dot status-dot--${tone}`} data-testid="connection-state">
        {label}
      </span>
      {connection ? (
        <span className="connection__when" data-testid="connection-when">
          {' · '}
          <time dateTime={connection.at}>{formatClock(connection.at)}</time>
        </span>
      ) : null}
    </span>
  );
}

function ProfileSwitcher(): React.JSX.Element {
  const profiles = useAppStore((state) => state.profiles);
  const activeProfileId = useAppStore((state) => state.activeProfileId);
  const setActiveProfile = useAppStore((state) => state.setActiveProfile);
  return (
    <label className="profile-switcher">
      <span>Profile</span>
      <select
        value={activeProfileId ?? ''}
        onChange={(event) => void setActiveProfile(event.target.value)}
        disabled={profiles.length === 0}
        aria-label="Active profile"
      >
        {profiles.length === 0 ? <option value="">No profiles yet</option> : null}
        {profiles.map((profile) => (
          <option key={profile.id} value={profile.id}>
            {profile.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The frame around every screen: navigation (Ctrl/⌘+1…4), the profile in use and whether its service answers. */
export function Shell({ children }: { children: React.ReactNode }): React.JSX.Element {
  const screen = useAppStore((state) => state.screen);
  const go = useAppStore((state) => state.go);
  const banner = useAppStore((state) => state.banner);
  const setBanner = useAppStore((state) => state.setBanner);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey)) return;
      const target = SCREENS.find((candidate) => candidate.shortcut === event.key);
      if (target) {
        event.preventDefault();
        go(target.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);

  return (
    <div className="shell">
      <header className="shell__header">
        <span className="brand">Closebook</span>
        <nav className="shell__nav" aria-label="Main">
          {SCREENS.map((item) => (
            <button
              key={item.id}
              type="button"
              className={item.id === screen ? 'nav-item nav-item--active' : 'nav-item'}
              aria-current={item.id === screen ? 'page' : undefined}
              onClick={() => go(item.id)}
              title={`${item.label} (Ctrl+${item.shortcut})`}
            >
              {item.label}
            </button>
          ))}
        </nav>
        <div className="shell__right">
          <ProfileSwitcher />
          <ConnectionIndicator />
        </div>
      </header>
      {banner ? (
        <div className="banner" role="alert">
          <span>{banner}</span>
          <button type="button" className="link" onClick={() => setBanner(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      <main className="shell__main">{children}</main>
    </div>
  );
}
