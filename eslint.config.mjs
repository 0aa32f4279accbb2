import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electron = { name: 'electron', message: 'Only the Electron host (src/main, src/preload) may import electron.' };
const keytar = { name: 'keytar', message: 'Only src/main/keychain.ts may import keytar.' };
const nodeBuiltins = ['fs', 'fs/promises', 'path', 'os', 'crypto', 'http', 'https', 'net', 'child_process', 'url', 'util', 'stream', 'buffer'].map((name) => ({
  name,
  message: 'This code also runs in the renderer: no Node modules.',
}));

const coreNoGlue = { group: ['@main/*', '**/keychain', '**/ipc', '**/window'], message: 'The core must not import the Electron host (src/main).' };
const coreNoTwin = { group: ['@twin/*', '**/twin', '**/twin/**'], message: 'The core never imports the twin (core tests reach it through src/testing).' };
const coreNoTesting = {
  group: ['@testing/*', '**/testing', '**/testing/**'],
  message: 'The core must not import the test helpers (only its *.test.ts files may).',
};
const hostFrontDoorOnly = {
  group: ['@core/*', '**/core/*', '!**/core/index'],
  message: "Hosts import the core only through its front door ('@core'); export what you need from there.",
};
/** Imports climb out of a folder at most once: further away, a module is named by its top folder (@core/…, @shared/…). */
const noClimbing = {
  group: ['../../*'],
  message: 'Import by top folder (@core/…, @shared/…, @renderer/… as tsconfig.json names them) instead of climbing out with ../../.',
};
/** The sides' own code, which src/shared and the renderer never import. */
/** The core's features, each behind its own index.ts (the folders beside them — ledger, storage, xlsx … — are what they share). */
const CORE_FEATURES = ['close', 'consumption', 'copy-print', 'organizations', 'profiles', 'reports', 'settings'];
const sides = ['@core', '@core/*', '@main/*', '@cli/*', '@harness/*', '@twin/*', '@testing/*', '**/main/**', '**/core/**'];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'playwright-report/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': 'error',
      'no-restricted-imports': ['error', { patterns: [noClimbing] }],
    },
  },
  {
    // The core is the whole app under plain Node: no Electron, no keychain binding, no Electron glue, no twin.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar], patterns: [noClimbing, coreNoGlue, coreNoTwin, coreNoTesting] }],
    },
  },
  ...CORE_FEATURES.map((feature) => ({
    // A feature reaches another only through that one's index.ts: what it offers the others is said there.
    files: [`src/core/${feature}/**/*.ts`],
    ignores: ['src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electron, keytar],
          patterns: [
            noClimbing,
            coreNoGlue,
            coreNoTwin,
            coreNoTesting,
            {
              group: CORE_FEATURES.filter((other) => other !== feature).flatMap((other) => [`../${other}/*`, `@core/${other}/*`]),
              message: 'Features import each other only through their index.ts (e.g. ../reports); export what is needed there.',
            },
          ],
        },
      ],
    },
  })),
  {
    // The core's own unit tests may use the test helpers (src/testing), which wrap the twin; never the twin itself.
    files: ['src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar], patterns: [noClimbing, coreNoGlue, coreNoTwin] }],
    },
  },
  {
    // Hosts (the Electron main process, CLI, browser test bridge, e2e tests, bench) use the core only through its
    // front door, '@core'. src/testing (test helpers) is not a host and may reach inside.
    files: ['src/main/**/*.ts', 'src/cli/**/*.ts', 'src/harness/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noClimbing, hostFrontDoorOnly] }],
    },
  },
  {
    // The contract is imported by every side, the renderer included: no Node, no Electron.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electron, keytar, ...nodeBuiltins],
          patterns: [
            noClimbing,
            { group: ['node:*'], message: 'src/shared runs in the renderer too: no Node modules.' },
            { group: [...sides, '@renderer/*', '**/renderer/**'], message: 'src/shared imports nothing from the sides.' },
          ],
        },
      ],
    },
  },
  {
    // The renderer talks only to the contract, through the bridge.
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electron, keytar, ...nodeBuiltins],
          patterns: [
            noClimbing,
            { group: [...sides, '**/preload/**'], message: 'The renderer must not import main-process code; use the bridge.' },
            { group: ['node:*'], message: 'The renderer has no Node.' },
          ],
        },
      ],
    },
  },
  {
    // The CLI calls channels through context.call (the contract's dispatch), so its input is checked like every host's.
    files: ['src/cli/**/*.ts'],
    ignores: ['src/cli/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='handlers']",
          message: "Call a channel with context.call('channel', input): the contract then checks its input, as it does for every host.",
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'scripts/**', 'bench/**', '.ci/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'tests/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The unit tests share one module graph per worker (vitest.config.mts): a module replaced there would be replaced
    // for whichever file comes next, or not at all. Files that replace one run apart, named *.mocks.test.ts.
    files: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    ignores: ['src/**/*.mocks.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock)$/]",
          message: 'A test that replaces a module runs in a module graph of its own: name its file *.mocks.test.ts.',
        },
      ],
    },
  },
);
