import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electron = { name: 'electron', message: 'Only the Electron hosts (src/main/*.ts, src/preload) may import electron.' };
const keytar = { name: 'keytar', message: 'Only src/main/keychain.ts may import keytar.' };
const nodeBuiltins = ['fs', 'fs/promises', 'path', 'os', 'crypto', 'http', 'https', 'net', 'child_process', 'url', 'util', 'stream', 'buffer'].map((name) => ({
  name,
  message: 'This code also runs in the renderer: no Node modules.',
}));

const coreNoGlue = { group: ['**/keychain', '**/ipc', '**/window', '../index'], message: 'The core must not import the Electron glue.' };
const coreNoTwin = { group: ['**/twin', '**/twin/**'], message: 'The core never imports the twin (core tests reach it through src/main/testing).' };
const coreNoTesting = { group: ['**/testing', '**/testing/**'], message: 'The core must not import the test helpers (only its *.test.ts files may).' };
const hostFrontDoorOnly = {
  group: ['**/core/*', '!**/core/index'],
  message: "Hosts import the core only through its front door (core/index, e.g. '../core'); export what you need from there.",
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'playwright-report/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The core is the whole app under plain Node: no Electron, no keychain binding, no Electron glue, no twin.
    files: ['src/main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar], patterns: [coreNoGlue, coreNoTwin, coreNoTesting] }],
    },
  },
  {
    // The core's own unit tests may use the test helpers (src/main/testing), which wrap the twin; never the twin itself.
    files: ['src/main/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar], patterns: [coreNoGlue, coreNoTwin] }],
    },
  },
  {
    // Hosts (Electron glue, CLI, browser test bridge, e2e tests, bench) use the core only through its front door,
    // core/index. src/main/testing (test helpers) is not a host and may reach inside.
    files: ['src/main/*.ts', 'src/main/cli/**/*.ts', 'src/main/harness/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [hostFrontDoorOnly] }],
    },
  },
  {
    // The contract is imported by every side, the renderer included: no Node, no Electron.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar, ...nodeBuiltins], patterns: [{ group: ['node:*'], message: 'src/shared runs in the renderer too: no Node modules.' }, { group: ['**/main/**', '**/renderer/**'], message: 'src/shared imports nothing from the sides.' }] }],
    },
  },
  {
    // The renderer talks only to the contract, through the bridge.
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar, ...nodeBuiltins], patterns: [{ group: ['**/main/**', '**/preload/**'], message: 'The renderer must not import main-process code; use the bridge.' }, { group: ['node:*'], message: 'The renderer has no Node.' }] }],
    },
  },
  {
    files: ['src/main/cli/**/*.ts', 'scripts/**', 'bench/**', '.ci/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'tests/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
