import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// Main and preload keep their dependencies external (keytar is a native module); the renderer is bundled. Every
// part resolves the imports by top folder (@core, @shared …) that tsconfig.json names.
const byTopFolder = { tsconfigPaths: true };

export default defineConfig({
  main: {
    resolve: byTopFolder,
    build: {
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } },
    },
  },
  preload: {
    resolve: byTopFolder,
    build: {
      externalizeDeps: { exclude: ['zod'] },
      rollupOptions: { input: { index: resolve(__dirname, 'src/preload/index.ts') } },
    },
  },
  renderer: {
    resolve: byTopFolder,
    root: resolve(__dirname, 'src/renderer'),
    build: { rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } } },
    plugins: [react()],
  },
});
