import { useConsumption } from './consumption-store';

/** Why names may be missing beside the ids: no profile, no saved report of it yet, or the lookup failed. */
export function NamesNote({ hasProfile }: { hasProfile: boolean }): React.JSX.Element | null {
  const savedReports = useConsumption((state) => state.savedReports);
  const namesError = useConsumption((state) => state.namesError);
  if (!hasProfile) return <p className="muted">Choose a profile to see the customer and subscription names beside the ids.</p>;
  if (namesError) return <p className="muted">Names could not be looked up: {namesError}</p>;
  if (savedReports === 0) {
    return (
      <p className="muted" data-testid="names-note">
        No billing report of this profile is saved yet, so no names can be shown beside the ids. Request one on the Reports screen.
      </p>
    );
  }
  return null;
}
