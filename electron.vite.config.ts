import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { contentSecurityPolicy } from './src/main/window';

/**
 * The page's own Content-Security-Policy, its <meta> filled in from the one policy the main process also sends (a page
 * loaded from the app's files gets no header): strict in the build; under Vite's dev server, with its inline styles.
 */
const PAGE_POLICY = '%CLOSEBOOK_PAGE_POLICY%';
const pagePolicy = (): Plugin => {
  let viteDevServer = false;
  return {
    name: 'closebook-page-policy',
    configResolved: (config) => {
      viteDevServer = config.command === 'serve';
    },
    transformIndexHtml: (html) => {
      if (!html.includes(PAGE_POLICY)) throw new Error(`src/renderer/index.html has lost its ${PAGE_POLICY} (the page's Content-Security-Policy)`);
      return html.replace(PAGE_POLICY, contentSecurityPolicy({ meta: true, viteDevServer }));
    },
  };
};

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
    plugins: [pagePolicy(), react()],
  },
});
