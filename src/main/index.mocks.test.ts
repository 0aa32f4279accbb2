import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { channelNames } from '@shared/contract';

// Electron cannot run here, so the glue is proven against a recording double of the electron module.
const recorded = vi.hoisted(() => ({
  windows: [] as { options: Record<string, unknown>; contents: Record<string, unknown>; loaded?: string }[],
  handles: [] as string[],
  headerHook: null as null | ((details: unknown, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void),
  permissionHook: null as null | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void),
  permissionCheck: null as null | ((contents: unknown, permission: string) => boolean),
  devicePermission: null as null | ((details: unknown) => boolean),
  openedExternally: [] as string[],
  ipcHandlers: new Map<string, (event: unknown, input: unknown) => Promise<unknown>>(),
  clipboard: [] as Record<string, string>[],
  printed: [] as unknown[],
  netFetches: [] as string[],
  schemes: [] as unknown[],
  protocolHandlers: new Map<string, (request: { url: string }) => Promise<Response>>(),
  appHandlers: new Map<string, (event: { preventDefault: () => void }) => void>(),
  quits: 0,
  dataDir: '',
}));

vi.mock('electron', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  recorded.dataDir = mkdtempSync(join(tmpdir(), 'closebook-main-')); // the app's data folder, removed after
  class BrowserWindow {
    static getAllWindows = () => recorded.windows;
    static getFocusedWindow = () => null;
    isDestroyed = () => false;
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
        printToPDF: async (options: unknown) => (recorded.printed.push(options), new Uint8Array([37, 80, 68, 70])),
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
      isPackaged: true,
      whenReady: () => Promise.resolve(),
      getPath: () => recorded.dataDir,
      getVersion: () => '0.1.0',
      requestSingleInstanceLock: () => true,
      on: (event: string, handler: (event: { preventDefault: () => void }) => void) => recorded.appHandlers.set(event, handler),
      quit: () => recorded.quits++,
      exit: () => {},
    },
    BrowserWindow,
    dialog: { showSaveDialog: async () => ({ canceled: true }), showOpenDialog: async () => ({ canceled: true, filePaths: [] }) },
    // Electron's ClipboardItem as the main process builds it: a MIME type → payload record.
    ClipboardItem: class {
      constructor(readonly items: Record<string, string>) {}
    },
    clipboard: {
      write: async (items: { items: Record<string, string> }[]) => {
        recorded.clipboard.push(...items.map((item) => item.items));
      },
    },
    Notification: class {
      static isSupported = () => false;
    },
    ipcMain: {
      handle: (channel: string, handler: (event: unknown, input: unknown) => Promise<unknown>) => {
        recorded.handles.push(channel);
        recorded.ipcHandlers.set(channel, handler);
      },
    },
    Menu: { setApplicationMenu: () => {}, buildFromTemplate: () => ({}) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => recorded.schemes.push(...schemes),
      handle: (scheme: string, handler: (request: { url: string }) => Promise<Response>) =>
        recorded.protocolHandlers.set(scheme, async (request) => handler(request)),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (hook: typeof recorded.permissionHook) => (recorded.permissionHook = hook),
        setPermissionCheckHandler: (hook: typeof recorded.permissionCheck) => (recorded.permissionCheck = hook),
        setDevicePermissionHandler: (hook: typeof recorded.devicePermission) => (recorded.devicePermission = hook),
        webRequest: { onHeadersReceived: (hook: typeof recorded.headerHook) => (recorded.headerHook = hook) },
      },
    },
    shell: { openExternal: (url: string) => recorded.openedExternally.push(url) },
    net: {
      fetch: (input: string, init?: RequestInit) => {
        recorded.netFetches.push(input);
        return fetch(input, init);
      },
    },
  };
});

async function started() {
  await import('./index');
  await vi.waitFor(() => expect(recorded.windows.length).toBe(1));
  return recorded.windows[0] as (typeof recorded.windows)[number];
}

afterAll(() => rmSync(recorded.dataDir, { recursive: true, force: true }));

describe('the Electron main process', () => {
  it('opens one window with the security checklist: context isolation, sandbox, no Node', async () => {
    const window = await started();
    const preferences = window.options.webPreferences as Record<string, unknown>;
    expect(preferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
    expect(String(preferences.preload)).toMatch(/preload[\\/]index\.js$/);
    expect(window.loaded).toBe('app://closebook/index.html');
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

  it('denies new windows, opens in the browser only the links the app shows, and refuses navigation and redirects away', async () => {
    const window = await started();
    const contents = window.contents as {
      windowOpenHandler: (details: { url: string }) => { action: string };
      handlers: Record<string, (event: { preventDefault: () => void; url?: string }, url?: string) => void>;
    };
    expect(contents.windowOpenHandler({ url: 'https://example.com/help' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(recorded.openedExternally).toEqual([]); // not on the allow-list: not even https goes out
    const prevent = vi.fn();
    contents.handlers['will-navigate']?.({ preventDefault: prevent }, 'https://evil.example/');
    expect(prevent).toHaveBeenCalledTimes(1);
    const redirect = vi.fn();
    contents.handlers['will-redirect']?.({ preventDefault: redirect }, 'https://evil.example/');
    expect(redirect).toHaveBeenCalledTimes(1);
    const frame = vi.fn();
    contents.handlers['will-frame-navigate']?.({ preventDefault: frame, url: 'https://evil.example/frame' });
    expect(frame).toHaveBeenCalledTimes(1);
    const allow = vi.fn();
    contents.handlers['will-navigate']?.({ preventDefault: allow }, window.loaded);
    expect(allow).not.toHaveBeenCalled();
    const webview = vi.fn();
    contents.handlers['will-attach-webview']?.({ preventDefault: webview });
    expect(webview).toHaveBeenCalled();
  });

  it('grants notifications only, in requests and in checks, and no devices', async () => {
    await started();
    const answers: Record<string, boolean> = {};
    for (const permission of ['notifications', 'media', 'geolocation', 'clipboard-read'])
      recorded.permissionHook?.(null, permission, (granted) => (answers[permission] = granted));
    expect(answers).toEqual({ notifications: true, media: false, geolocation: false, 'clipboard-read': false });
    expect(['notifications', 'media', 'hid', 'serial', 'clipboard-sanitized-write'].map((permission) => recorded.permissionCheck?.(null, permission))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(recorded.devicePermission?.({ deviceType: 'usb' })).toBe(false);
  });

  it('has no developer tools in the packaged app and ignores ELECTRON_RENDERER_URL there', async () => {
    const window = await started();
    expect((window.options.webPreferences as Record<string, unknown>).devTools).toBe(false);
    const { rendererUrl } = await import('./window');
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173/' };
    expect(rendererUrl(true, env)).toBe('app://closebook/index.html');
    expect(rendererUrl(false, env)).toBe('http://localhost:5173/');
    // Even in development only a dev server on this machine.
    expect(rendererUrl(false, { ELECTRON_RENDERER_URL: 'https://evil.example/' })).toBe('app://closebook/index.html');
  });

  it('serves the built renderer as app://closebook/ and nothing outside its folder', async () => {
    await started();
    expect(recorded.schemes).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    const serve = recorded.protocolHandlers.get('app')!;
    recorded.netFetches.length = 0;
    await serve({ url: 'app://closebook/index.html' }).catch(() => undefined); // the built file is absent here: what was asked for is what matters
    expect(recorded.netFetches).toEqual([expect.stringMatching(/^file:\/\/.*[\\/]renderer[\\/]index\.html$/)]);
    for (const outside of [
      'app://closebook/..%2fpreload%2findex.js',
      'app://closebook/%2e%2e%2f%2e%2e%2fmain%2findex.js',
      'app://elsewhere/index.html',
      'file:///etc/passwd',
      'app://closebook/%E0%A4%A',
    ]) {
      expect((await serve({ url: outside })).status).toBe(404);
    }
    expect(recorded.netFetches).toHaveLength(1);
    const { rendererFile } = await import('./window');
    expect(rendererFile('app://closebook/assets/index.js', '/opt/out/renderer')).toBe('/opt/out/renderer/assets/index.js');
    expect(rendererFile('app://closebook/../../etc/passwd', '/opt/out/renderer')).toBe('/opt/out/renderer/etc/passwd'); // the address itself stays at its root
    expect(rendererFile('app://closebook/', '/opt/out/renderer')).toBeNull(); // the folder itself is no file
  });

  it('copies to the system clipboard and prints the window to a landscape A4 PDF, for its own window only', async () => {
    const window = await started();
    const fromWindow = { senderFrame: { parent: null, url: window.loaded } };
    const invoke = (channel: string, input: unknown, event: unknown = fromWindow) => recorded.ipcHandlers.get(channel)!(event, input);
    expect(
      await invoke('clipboard:copy-table', {
        rows: [
          ['Organization', 'Sales'],
          ['=cmd', '-12.50'],
        ],
      }),
    ).toEqual({ ok: true, data: { copied: true } });
    expect(recorded.clipboard).toEqual([
      {
        'text/plain': "Organization\tSales\r\n'=cmd\t-12.50",
        'text/html': `<meta charset="utf-8"><table><tr><td style="mso-number-format:'\\@'">Organization</td><td style="mso-number-format:'\\@'">Sales</td></tr><tr><td style="mso-number-format:'\\@'">'=cmd</td><td>-12.50</td></tr></table>`,
      },
    ]);
    expect(await invoke('view:print-pdf', { fileName: 'Summary' })).toEqual({ ok: true, data: { kind: 'cancelled' } }); // printed; the save dialog was cancelled
    expect(recorded.printed).toEqual([{ landscape: true, pageSize: 'A4', printBackground: false }]);
    const elsewhere = { senderFrame: { parent: null, url: 'https://evil.example/' } };
    expect(await invoke('clipboard:copy-table', { rows: [['x']] }, elsewhere)).toMatchObject({ ok: false, error: { code: 'untrusted-sender' } });
    expect(recorded.clipboard).toHaveLength(1);
  });

  it("calls the service through Chromium's network stack (the system's proxy and certificate store), not Node's", async () => {
    const window = await started();
    const fromWindow = { senderFrame: { parent: null, url: window.loaded } };
    const invoke = (channel: string, input: unknown) =>
      recorded.ipcHandlers.get(channel)!(fromWindow, input) as Promise<{ ok: boolean; data: { id: string } & unknown[] }>;
    const demo = await invoke('demo:start', {});
    expect(demo.ok).toBe(true);
    const organizations = await invoke('organizations:list', { profileId: demo.data.id });
    expect(organizations.ok).toBe(true);
    expect(recorded.netFetches.some((url) => url.endsWith('/connect/token'))).toBe(true);
    expect(recorded.netFetches.some((url) => /organizations/i.test(url))).toBe(true);
  });

  // Last: it stops the service.
  it('quits only once the service has stopped and its ledger is closed', async () => {
    const window = await started();
    const invoke = (channel: string, input: unknown) =>
      recorded.ipcHandlers.get(channel)!({ senderFrame: { parent: null, url: window.loaded } }, input) as Promise<{ ok: boolean; error?: { message: string } }>;
    expect((await invoke('reports:list', {})).ok).toBe(true); // the ledger is open
    const quitting = { preventDefault: vi.fn() };
    recorded.appHandlers.get('before-quit')!(quitting);
    expect(quitting.preventDefault).toHaveBeenCalled();
    expect(recorded.quits).toBe(0);
    await vi.waitFor(() => expect(recorded.quits).toBe(1), { timeout: 10_000 });
    expect(await invoke('reports:list', {})).toMatchObject({ ok: false, error: { message: expect.stringContaining('Closebook has closed its ledger') } });
    const again = { preventDefault: vi.fn() }; // the quit it asked for goes through
    recorded.appHandlers.get('before-quit')!(again);
    expect(again.preventDefault).not.toHaveBeenCalled();
  });
});
