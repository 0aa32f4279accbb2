import type { ServiceHandlers } from '@shared/contract';
import type { Ports } from '../ports/ports';
import { UiSettingsStore } from './ui-settings';

type SettingsHandlers = Pick<ServiceHandlers, 'settings:get' | 'settings:save'>;

/** The screens' remembered settings, kept by the main process so every host and window finds them again. */
export function createSettings(ports: Pick<Ports, 'dataDir' | 'log'>): { handlers: SettingsHandlers } {
  const store = new UiSettingsStore(ports.dataDir, ports.log);
  return {
    handlers: {
      'settings:get': () => store.get(),
      'settings:save': (settings) => store.save(settings),
    },
  };
}
