import type { BrowserWindowConstructorOptions, WebContents } from 'electron';

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

/** The Electron security checklist, in one place. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
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
    },
  };
}

/** No new windows, no navigation away from the app, no webviews; https links open in the user's browser. */
export function hardenWebContents(contents: WebContents, trustedUrl: string, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isSameDocument(url, trustedUrl)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
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
