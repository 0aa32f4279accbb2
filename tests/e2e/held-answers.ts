import type { Page } from '@playwright/test';

/**
 * Holds the bridge's answers on `channel` until `release` is called, so a test can look at the screen before and
 * after they arrive (as a slow machine shows it).
 */
export async function holdAnswers(page: Page, channel: string): Promise<{ release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => decodeURIComponent(url.pathname) === `/bridge/invoke/${channel}`,
    async (route) => {
      await held;
      await route.continue();
    },
  );
  return { release };
}
