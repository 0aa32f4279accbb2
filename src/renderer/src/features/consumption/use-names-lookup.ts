import { useEffect } from 'react';
import type { InputRow } from '@shared/schemas/consumption';
import { useConsumption } from './consumption-store';

/** Typing settles before ids are looked up: a half-typed GUID is not one, and one lookup covers a paste. */
const SETTLE_MS = 250;

/** Looks up the names of the rows' subscription ids for the profile (only ids not asked about before). */
export function useNamesLookup(profileId: string | null, rows: InputRow[]): void {
  const lookUpNames = useConsumption((state) => state.lookUpNames);
  useEffect(() => {
    if (!profileId || rows.length === 0) return undefined;
    const timer = setTimeout(
      () =>
        void lookUpNames(
          profileId,
          rows.map((row) => row.subscriptionId),
        ),
      SETTLE_MS,
    );
    return () => clearTimeout(timer);
  }, [profileId, rows, lookUpNames]);
}
