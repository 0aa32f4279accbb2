import { availableParallelism } from 'node:os';
import { sep } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files first, then Vitest's own order: on a fresh clone — no timings kept from a last run — Vitest orders
 * by file size, which started the longest late and left one worker running them alone at the end. The longest are
 * the files that drive the command line as processes (src/cli; the invoice run alone is two minutes in CI) and the
 * fault suite's three that start a service hundreds of times or race two (75–97 s each in CI: started last, the
 * sign-off race kept one worker busy alone for 65 s).
 */
const LONGEST_FAULTS = ['saved-files.faults.test.ts', 'sign-off-race.faults.test.ts', 'output-files.faults.test.ts'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isLong = (file: TestSpecification) =>
      file.moduleId.includes(`${sep}src${sep}cli${sep}`) || LONGEST_FAULTS.some((name) => file.moduleId.endsWith(`${sep}${name}`));
    return [...sorted.filter(isLong), ...sorted.filter((file) => !isLong(file))];
  }
}

// Four projects: 'unit' runs everywhere, with 'unit-mocks' beside it (npm run test:unit runs both); 'keychain' needs a
// real Secret Service (CI starts gnome-keyring for it); 'faults' is the seeded fuzz and fault suite (npm run
// test:faults), which prints its figures as one table.
export default defineConfig({
  // Imports by top folder (@core, @shared …), as tsconfig.json names them.
  resolve: { tsconfigPaths: true },
  test: {
    sequence: { sequencer: LongestFirst },
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
          exclude: ['src/**/*.keychain.test.ts', 'src/**/*.faults.test.ts', 'src/**/*.mocks.test.ts'],
          environment: 'node',
          globalSetup: ['src/testing/cli-build-setup.ts'],
          testTimeout: 20_000,
          // A worker runs its files one after another in one module graph, so the packages are loaded once per
          // worker, not once per file: 308 s against 377 s for the unit tests from a fresh clone on two cores. A
          // test file therefore leaves nothing behind (state in a module of its own making, a stubbed global, a
          // changed variable).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // vi.mock replaces a module for the file that asks: those files run each in a module graph of its own.
          name: 'unit-mocks',
          include: ['src/**/*.mocks.test.ts'],
          environment: 'node',
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
