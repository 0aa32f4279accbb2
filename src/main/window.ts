import { resolve, sep } from 'node:path';
import type { BrowserWindowConstructorOptions, PrintToPDFOptions, WebContents } from 'electron';

/**
 * Strict CSP: only the app's own scripts and styles, no eval, no remote content. The renderer talks to the main
 * process over IPC, so it needs no network access of its own ('self' covers the browser test bridge).
 */
const POLICY: readonly (readonly [string, string])[] = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
  ['object-src', "'none'"],
];

/** What Vite's dev server writes into the page: React's fast refresh an inline script, each stylesheet a <style>. */
const INLINE_UNDER_VITE = new Set(['script-src', 'style-src']);

/**
 * The policy as a header, or as the page's own <meta> (`meta`: without frame-ancestors, which a <meta> may not
 * carry). `viteDevServer`: the renderer served by Vite while developing (`npm run dev`) — inline scripts and styles
 * are allowed then, and only then (without them the page stays blank); a built app never allows them.
 */
export function contentSecurityPolicy({ meta = false, viteDevServer = false } = {}): string {
  return POLICY.filter(([directive]) => !(meta && directive === 'frame-ancestors'))
    .map(([directive, sources]) => `${directive} ${viteDevServer && INLINE_UNDER_VITE.has(directive) ? `${sources} 'unsafe-inline'` : sources}`)
    .join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

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
export function hardenWebContents(
  contents: WebContents,
  trustedUrl: string,
  openExternal: (url: string) => void,
  allowedLinks: readonly string[] = EXTERNAL_LINKS,
): void {
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
 * The built renderer is served as app://closebook/… by the main process, not loaded from file:. Pages from file:
 * get privileges no browser gives them (reading other local files among them); with the fuse
 * grantFileProtocolExtraPrivileges off they get none, and a standard, secure scheme of the app's own gives the
 * renderer what it needs (ES modules, 'self' in the CSP) and nothing more.
 */
export const APP_SCHEME = 'app';
const APP_HOST = 'closebook';
export const APP_SCHEME_PRIVILEGES = { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } };

/**
 * The file of the renderer folder an app:// address names, or null for any other address and for any path that
 * would leave the folder (../, an encoded slash): the app protocol serves the built renderer and nothing else.
 */
export function rendererFile(url: string, rendererDir: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null;
    const file = resolve(rendererDir, `.${decodeURIComponent(parsed.pathname)}`);
    return file.startsWith(`${resolve(rendererDir)}${sep}`) ? file : null;
  } catch {
    return null; // a malformed address or escape
  }
}

/**
 * Where the renderer is loaded from: the app's own scheme — or, in development only, the dev server electron-vite
 * names in ELECTRON_RENDERER_URL (a packaged app ignores it: an environment variable must not point it at other code).
 */
export function rendererUrl(packaged: boolean, env: Readonly<Record<string, string | undefined>>): string {
  const dev = env.ELECTRON_RENDERER_URL;
  if (!packaged && dev) {
    try {
      const url = new URL(dev);
      if (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return dev;
    } catch {
      // not a URL: use the built renderer
    }
  }
  return `${APP_SCHEME}://${APP_HOST}/index.html`;
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
