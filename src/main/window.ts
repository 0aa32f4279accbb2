import { pathToFileURL } from 'node:url';
import type { BrowserWindowConstructorOptions, PrintToPDFOptions, WebContents } from 'electron';

/**
 * Strict CSP: only the app's own scripts and styles, no eval, no remote content. The renderer talks to the main
 * process over IPC, so it needs no network access of its own ('self' covers the browser test bridge).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** The Electron security checklist, in one place. Developer tools only in development (`packaged` false). */
export function mainWindowOptions(preloadPath: string, packaged = true): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Closebook',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      devTools: !packaged,
    },
  };
}

/** Save as PDF: landscape A4 for wide tables; the renderer's print stylesheet lays the page out, so no backgrounds. */
export const PRINT_TO_PDF_OPTIONS: PrintToPDFOptions = { landscape: true, pageSize: 'A4', printBackground: false };

/**
 * The https links the app itself shows, which open in the user's browser; any other link a page could produce is
 * refused. None today: add a help or release-notes address here when the app shows one.
 */
export const EXTERNAL_LINKS: readonly string[] = [];

/** No new windows, no navigation or redirect away from the app (in any frame), no webviews. */
export function hardenWebContents(contents: WebContents, trustedUrl: string, openExternal: (url: string) => void, allowedLinks: readonly string[] = EXTERNAL_LINKS): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://') && allowedLinks.includes(url)) openExternal(url);
    return { action: 'deny' };
  });
  const stayHome = (event: { preventDefault(): void }, url: string) => {
    if (!isSameDocument(url, trustedUrl)) event.preventDefault();
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-frame-navigate', (event) => stayHome(event, event.url));
  contents.on('will-redirect', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Where the renderer is loaded from: the built file — or, in development only, the dev server electron-vite names
 * in ELECTRON_RENDERER_URL (a packaged app ignores it: an environment variable must not point it at other code).
 */
export function rendererUrl(packaged: boolean, env: Readonly<Record<string, string | undefined>>, builtFile: string): string {
  const dev = env.ELECTRON_RENDERER_URL;
  if (!packaged && dev) {
    try {
      const url = new URL(dev);
      if (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return dev;
    } catch {
      // not a URL: use the built file
    }
  }
  return pathToFileURL(builtFile).toString();
}

function isSameDocument(url: string, trustedUrl: string): boolean {
  try {
    const target = new URL(url);
    const trusted = new URL(trustedUrl);
    return target.protocol === trusted.protocol && target.host === trusted.host && target.pathname === trusted.pathname;
  } catch {
    return false;
  }
}
