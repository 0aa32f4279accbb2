import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, clipboard, ClipboardItem, dialog, ipcMain, Menu, net, Notification, protocol, session, shell } from 'electron';
import { createFileLogger, createService, type DeliverFile, systemClock } from '@core';
import { forwardEvents, registerIpc } from './ipc';
import { KeytarSecretStore } from './keychain';
import { quitWhenStopped } from './quit';
import { createDemoStarter } from '@twin/demo';
import {
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  contentSecurityPolicy,
  hardenWebContents,
  mainWindowOptions,
  PRINT_TO_PDF_OPTIONS,
  rendererFile,
  rendererUrl,
} from './window';
import { errorMessage } from '@shared/error-message';

/**
 * `--demo` (`npm run demo`): a throwaway data folder, removed when the app quits, so trying the demo never touches a
 * real one. The app opens on its first start, where *Try the demo service* starts the built-in twin.
 */
const demoFolder = process.argv.includes('--demo') ? mkdtempSync(join(tmpdir(), 'closebook-demo-')) : null;
if (demoFolder) app.setPath('userData', demoFolder);

/** stderr and `logs/closebook.log` in the data folder (rotated, secrets masked): what support asks for. */
const log = createFileLogger(app.getPath('userData'));

const FILE_FILTERS: Record<Parameters<DeliverFile>[1], Electron.FileFilter> = {
  xlsx: { name: 'Excel workbook', extensions: ['xlsx'] },
  csv: { name: 'CSV file', extensions: ['csv'] },
  parquet: { name: 'Parquet file', extensions: ['parquet'] },
  json: { name: 'Closebook report', extensions: ['gz'] },
  pdf: { name: 'PDF document', extensions: ['pdf'] },
  xml: { name: 'E-invoice (UBL)', extensions: ['xml'] },
};

/** Electron's save dialog; the core then writes the file there itself (atomically: complete or not at all). */
const deliverWithDialog: DeliverFile = async (suggestedName, kind, write) => {
  const owner = BrowserWindow.getFocusedWindow();
  const options = { defaultPath: join(app.getPath('documents'), suggestedName), filters: [FILE_FILTERS[kind]] };
  const result = owner ? await dialog.showSaveDialog(owner, options) : await dialog.showSaveDialog(options);
  if (result.canceled || !result.filePath) return { kind: 'cancelled' };
  await write(result.filePath);
  return { kind: 'saved', path: result.filePath };
};

/** How long quitting waits for work under way to finish and the ledger to close (quit.ts). */
const QUIT_WAIT_MS = 10_000;

// The renderer's own scheme must be known before the app is ready (see window.ts: why not file:).
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

/** Starts Closebook: one service, one window, IPC from that window only. */
export async function startApp(): Promise<void> {
  await app.whenReady();
  const rendererDir = join(__dirname, '../renderer');
  protocol.handle(APP_SCHEME, (request) => {
    const file = rendererFile(request.url, rendererDir);
    return file ? net.fetch(pathToFileURL(file).toString()) : new Response('Not found', { status: 404 });
  });
  const defaultSession = session.defaultSession;
  // Only OS notifications (report ready) may be asked for; camera, geolocation and the rest are refused.
  defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'notifications'));
  defaultSession.setPermissionCheckHandler((_contents, permission) => permission === 'notifications');
  defaultSession.setDevicePermissionHandler(() => false); // no USB, HID or serial devices
  const trustedUrl = rendererUrl(app.isPackaged, process.env);
  // Served by Vite while developing (an unpackaged app given its dev server), its stylesheets are inline.
  const policy = contentSecurityPolicy({ viteDevServer: !trustedUrl.startsWith(`${APP_SCHEME}:`) });
  defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
  });

  const demo = createDemoStarter();
  let mainWindow: BrowserWindow | null = null;
  const service = createService({
    dataDir: app.getPath('userData'),
    secrets: new KeytarSecretStore(),
    // Chromium's network stack: the system's proxy settings and certificate store, as the rest of the desktop uses.
    fetch: (input, init) => net.fetch(input, init),
    clock: systemClock,
    log,
    startDemoService: demo.start,
    appVersion: app.getVersion(),
    host: 'electron',
    pickFile: async () => {
      const owner = BrowserWindow.getFocusedWindow();
      const options: Electron.OpenDialogOptions = { properties: ['openFile'], filters: [{ name: 'Closebook report', extensions: ['gz', 'json'] }] };
      const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
      return result.canceled ? null : (result.filePaths[0] ?? null);
    },
    pickFolder: async (title) => {
      const owner = BrowserWindow.getFocusedWindow();
      const options: Electron.OpenDialogOptions = { title, buttonLabel: 'Save here', properties: ['openDirectory', 'createDirectory'] };
      const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
      return result.canceled ? null : (result.filePaths[0] ?? null);
    },
    deliver: deliverWithDialog,
    writeClipboard: ({ text, html }) => clipboard.write([new ClipboardItem({ 'text/plain': text, 'text/html': html })]),
    printToPdf: async () => {
      if (!mainWindow || mainWindow.isDestroyed()) throw new Error('the Closebook window is closed');
      return mainWindow.webContents.printToPDF(PRINT_TO_PDF_OPTIONS);
    },
    notify: (title, body) => {
      if (Notification.isSupported()) new Notification({ title, body }).show();
    },
  });
  registerIpc(ipcMain, service, trustedUrl, log);
  await service.start(); // report requests left running by the last session carry on

  const openWindow = () => {
    const window = new BrowserWindow(mainWindowOptions(join(__dirname, '../preload/index.js'), app.isPackaged));
    mainWindow = window;
    hardenWebContents(window.webContents, trustedUrl, (url) => void shell.openExternal(url));
    forwardEvents(service, window.webContents);
    window.once('ready-to-show', () => window.show());
    void window.loadURL(trustedUrl);
    return window;
  };

  Menu.setApplicationMenu(process.platform === 'darwin' ? Menu.buildFromTemplate([{ role: 'appMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }]) : null);
  openWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  quitWhenStopped(
    app,
    () => Promise.allSettled([demo.stop(), service.dispose()]),
    QUIT_WAIT_MS,
    () => {
      log.warn('quitting: work under way did not stop in time, so the process ends itself', { waitedMs: QUIT_WAIT_MS });
      process.kill(process.pid, 'SIGKILL'); // not exit(): Node's teardown would close DuckDB under the running statement
    },
  );
  app.on('will-quit', () => {
    if (demoFolder) rmSync(demoFolder, { recursive: true, force: true });
  });
}

// A second instance would race the first on the same files: focus the first instead.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
  startApp().catch((error: unknown) => {
    log.warn('Closebook could not start', { error: errorMessage(error) });
    app.exit(1);
  });
}
