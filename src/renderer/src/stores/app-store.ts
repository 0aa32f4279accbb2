import { create } from 'zustand';
import type { AppInfo, ConnectionState } from '@shared/contract';
import type { ProfilesState, ProfileView } from '@shared/schemas/profile';
import { call, errorMessage } from '../bridge';

export type Screen = 'reports' | 'consumption' | 'organizations' | 'profiles';

export const SCREENS: { id: Screen; label: string; shortcut: string }[] = [
  { id: 'reports', label: 'Reports', shortcut: '1' },
  { id: 'consumption', label: 'Consumption', shortcut: '2' },
  { id: 'organizations', label: 'Organizations', shortcut: '3' },
  { id: 'profiles', label: 'Settings', shortcut: '4' },
];

interface AppState {
  screen: Screen;
  info: AppInfo | null;
  profiles: ProfileView[];
  activeProfileId: string | null;
  connection: Record<string, ConnectionState>;
  /** A message for the whole window (e.g. the bridge is gone); screens show their own errors beside their content. */
  banner: string | null;
  go(screen: Screen): void;
  load(): Promise<void>;
  applyProfiles(state: ProfilesState): void;
  setActiveProfile(profileId: string): Promise<void>;
  setConnection(state: ConnectionState): void;
  setBanner(message: string | null): void;
}

/** UI state only: what is shown and selected. Data comes through the bridge. */
export const useAppStore = create<AppState>((set) => ({
  screen: 'reports',
  info: null,
  profiles: [],
  activeProfileId: null,
  connection: {},
  banner: null,
  go: (screen) => set({ screen }),
  load: async () => {
    try {
      const [info, profiles] = await Promise.all([call('app:info', {}), call('profiles:list', {})]);
      set({ info, profiles: profiles.profiles, activeProfileId: profiles.activeProfileId, banner: null });
      if (profiles.profiles.length === 0) set({ screen: 'profiles' });
    } catch (error) {
      set({ banner: errorMessage(error) });
    }
  },
  applyProfiles: (state) => set({ profiles: state.profiles, activeProfileId: state.activeProfileId }),
  setActiveProfile: async (profileId) => {
    try {
      const state = await call('profiles:set-active', { profileId });
      set({ profiles: state.profiles, activeProfileId: state.activeProfileId });
    } catch (error) {
      set({ banner: errorMessage(error) });
    }
  },
  setConnection: (state) => set((current) => ({ connection: { ...current.connection, [state.profileId]: state } })),
  setBanner: (banner) => set({ banner }),
}));

export function useActiveProfile(): ProfileView | undefined {
  return useAppStore((state) => state.profiles.find((profile) => profile.id === state.activeProfileId));
}
