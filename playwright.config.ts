import { defineConfig } from '@playwright/test';

/** The tests with a time limit on what the user waits for. */
const TIMED = /a 100,000-line report|a batch of 50,000 rows/;

// The renderer runs in Debian's Chromium against the browser test bridge (Playwright's own browser download
// cannot reach its host here). CHROMIUM_PATH points elsewhere on other machines.

export default defineConfig({
  testDir: 'tests/e2e',
  // Playwright empties its output folder at start; keep it apart from the other runners' reports.
  outputDir: 'test-results/e2e-artifacts',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // Each test has its own bridge, data folder, twin and ports, so two run at once: one waits on the twin's polls or a
  // paint while the other works (6.5–7.7 min on two cores, against 8.3–8.5 min one at a time in CI).
  workers: 2,
  // Tests, not files, are shared out between the two: the report viewer's file alone is three minutes, and run by one
  // worker it was the last to end, the other idle beside it.
  fullyParallel: true,
  // The tests that time what a person feels (a keystroke's echo, a 50,000-row batch checked) run first, one at a time
  // and alone: with another test beside them on two cores, the echo of a keystroke measured 274 ms against its 250.
  // Should one fail, the rest are reported skipped (never passed), and the run fails.
  projects: [
    { name: 'timed', grep: TIMED, workers: 1 },
    { name: 'e2e', grepInvert: TIMED, dependencies: ['timed'] },
  ],
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  globalSetup: './tests/e2e/global-setup.ts',
  use: {
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    trace: 'retain-on-failure',
    acceptDownloads: true,
  },
});
