import { tmpdir } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { channelNames } from '../shared/contract';

// Electron cannot run here, so the glue is proven against a recording double of the electron module.
const recorded = vi.hoisted(() => ({
  windows: [] as { options: Record<string, unknown>; contents: Record<string, unknown>; loaded?: string }[],
  handles: [] as string[],
  headerHook: null as null | ((details: unknown, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void),
  permissionHook: null as null | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void),
  openedExternally: [] as string[],
}));

vi.mock('electron', () => {
  class BrowserWindow {
    static getAllWindows = () => recorded.windows;
    webContents: Record<string, unknown>;
    constructor(options: Record<string, unknown>) {
      const handlers: Record<string, (...args: unknown[]) => void> = {};
      this.webContents = {
        handlers,
        windowOpenHandler: null,
        setWindowOpenHandler(handler: unknown) {
          this.windowOpenHandler = handler;
        },
        on: (event: string, handler: (...args: unknown[]) => void) => (handlers[event] = handler),
        once: () => {},
        send: () => {},
        isDestroyed: () => false,
      };
      recorded.windows.push({ options, contents: this.webContents });
    }
    once() {}
    loadURL(url: string) {
      (recorded.windows.at(-1) as { loaded?: string }).loaded = url;
      return Promise.resolve();
    }
  }
  return {
    app: {
      whenReady: () => Promise.resolve(),
      getPath: () => tmpdir(),
      getVersion: () => '0.1.0',
      requestSingleInstanceLock: () => true,
      on: () => {},
      quit: () => {},
      exit: () => {},
    },
    BrowserWindow,
    dialog: { showSaveDialog: async () => ({ canceled: true }) },
    Notification: class {
      static isSupported = () => false;
    },
    ipcMain: { handle: (channel: string) => recorded.handles.push(channel) },
    Menu: { setApplicationMenu: () => {}, buildFromTemplate: () => ({}) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (hook: typeof recorded.permissionHook) => (recorded.permissionHook = hook),
        webRequest: { onHeadersReceived: (hook: typeof recorded.headerHook) => (recorded.headerHook = hook) },
      },
    },
    shell: { openExternal: (url: string) => recorded.openedExternally.push(url) },
  };
});

async function started() {
  await import('./index');
  await vi.waitFor(() => expect(recorded.windows.length).toBe(1));
  return recorded.windows[0] as (typeof recorded.windows)[number];
}

describe('the Electron main process', () => {
  it('opens one window with the security checklist: context isolation, sandbox, no Node', async () => {
    const window = await started();
    const preferences = window.options.webPreferences as Record<string, unknown>;
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
    expect(String(preferences.preload)).toMatch(/preload[\\/]index\.js$/);
    expect(window.loaded).toMatch(/^file:.*renderer\/index\.html$/);
  });

  it('registers every contract channel over IPC', async () => {
    await started();
    expect([...recorded.handles].sort()).toEqual([...channelNames].sort());
  });

  it('sets a strict Content-Security-Policy on every response', async () => {
    await started();
    let headers: Record<string, string[]> = {};
    recorded.headerHook?.({ responseHeaders: {} }, (response) => (headers = response.responseHeaders));
    const csp = headers['Content-Security-Policy']?.[0] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline|\*/);
  });

  it('denies new windows (opening https links in the browser) and navigation away', async () => {
    const window = await started();
    const contents = window.contents as { windowOpenHandler: (details: { url: string }) => { action: string }; handlers: Record<string, (event: { preventDefault: () => void }, url?: string) => void> };
    expect(contents.windowOpenHandler({ url: 'https://example.com/help' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(recorded.openedExternally).toEqual(['https://example.com/help']);
    const prevent = vi.fn();
    contents.handlers['will-navigate']?.({ preventDefault: prevent }, 'https://evil.example/');
    expect(prevent).toHaveBeenCalledTimes(1);
    const allow = vi.fn();
    contents.handlers['will-navigate']?.({ preventDefault: allow }, window.loaded);
    expect(allow).not.toHaveBeenCalled();
    const webview = vi.fn();
    contents.handlers['will-attach-webview']?.({ preventDefault: webview });
    expect(webview).toHaveBeenCalled();
  });

  it('grants notifications only', async () => {
    await started();
    const answers: Record<string, boolean> = {};
    for (const permission of ['notifications', 'media', 'geolocation', 'clipboard-read']) recorded.permissionHook?.(null, permission, (granted) => (answers[permission] = granted));
    expect(answers).toEqual({ notifications: true, media: false, geolocation: false, 'clipboard-read': false });
  });
});
