import { defineConfig } from 'vitest/config';

// Two projects: 'unit' runs everywhere; 'keychain' needs a real Secret Service (CI starts gnome-keyring for it).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
          exclude: ['src/**/*.keychain.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'keychain',
          include: ['src/**/*.keychain.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
    ],
  },
});
