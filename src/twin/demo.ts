import type { DemoService, DemoServiceStarter } from '@core/ports/ports';
import { startTwin, type Twin, type TwinOptions } from './server';

/** Demo mode: the twin starts in-process on first use and stops with the host. */
export function createDemoStarter(options: TwinOptions = {}): { start: DemoServiceStarter; stop: () => Promise<void> } {
  let running: Promise<Twin> | null = null;
  return {
    start: async (): Promise<DemoService> => {
      // A demo report is ready after ~6 s and two polls, so a new user sees progress without waiting minutes.
      running ??= startTwin({ reportReadyAfterMs: 6_000, reportReadyAfterPolls: 2, ...options });
      const twin = await running;
      return { baseUrl: twin.baseUrl, credentials: twin.credentials };
    },
    stop: async () => {
      if (running) await (await running).close();
      running = null;
    },
  };
}
