import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electron = { name: 'electron', message: 'Only the Electron hosts (src/main/*.ts, src/preload) may import electron.' };
const keytar = { name: 'keytar', message: 'Only src/main/keychain.ts may import keytar.' };
const nodeBuiltins = ['fs', 'fs/promises', 'path', 'os', 'crypto', 'http', 'https', 'net', 'child_process', 'url', 'util', 'stream', 'buffer'].map((name) => ({
  name,
  message: 'This code also runs in the renderer: no Node modules.',
}));

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
    // The core is the whole app under plain Node: no Electron, no keychain binding, no Electron glue.
    files: ['src/main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, keytar], patterns: [{ group: ['**/keychain', '**/ipc', '**/window', '../index'], message: 'The core must not import the Electron glue.' }] }],
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
