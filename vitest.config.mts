import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects: 'unit' runs everywhere; 'keychain' needs a real Secret Service (CI starts gnome-keyring for it);
// 'faults' is the seeded fuzz and fault suite (npm run test:faults), which prints its figures as one table.
export default defineConfig({
  // Imports by top folder (@core, @shared …), as tsconfig.json names them.
  resolve: { tsconfigPaths: true },
  test: {
    // At least two test files at once, even on two cores (vitest's default there is one): most of a file's time is
    // spent waiting on the CLI processes, DuckDB and PostgreSQL it drives, so two at once take CI's unit tests from
    // 451 s to 238 s and the fault suite from 316 s to 198 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
          exclude: ['src/**/*.keychain.test.ts', 'src/**/*.faults.test.ts'],
          environment: 'node',
          globalSetup: ['src/testing/cli-build-setup.ts'],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['src/**/*.faults.test.ts'],
          environment: 'node',
          globalSetup: ['src/testing/cli-build-setup.ts', 'src/testing/faults-setup.ts'],
          testTimeout: 150_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'keychain',
          include: ['src/**/*.keychain.test.ts'],
          environment: 'node',
          globalSetup: ['src/testing/cli-build-setup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
