import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, session, shell } from 'electron';
import { isAllowedExternalUrl, isAppUrl } from './decisions';

export interface MainWindowOptions {
  /** Directory of the built main entry (`out/main`); preload and renderer are found next to it. */
  mainDir: string;
  /** True once the app is quitting: closing then really closes instead of hiding. */
  isQuitting(): boolean;
}

export interface MainWindow {
  readonly window: BrowserWindow;
  /** The URL the window loads; IPC senders and navigations are checked against it. */
  readonly appUrl: string;
  /** Shows, restores and focuses the window. */
  reveal(): void;
}

/** The renderer's URL: the electron-vite dev server in development, the built file otherwise. */
export function rendererUrl(mainDir: string): string {
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (devUrl && !app.isPackaged) return devUrl;
  return pathToFileURL(join(mainDir, '..', 'renderer', 'index.html')).href;
}

let sessionHardened = false;

/** The renderer needs no browser permissions (camera, notifications, …): deny them all. */
function hardenSession(): void {
  if (sessionHardened) return;
  sessionHardened = true;
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => {
    callback(false);
  });
  session.defaultSession.setPermissionCheckHandler(() => false);
}

function openIfAllowed(url: string): void {
  if (isAllowedExternalUrl(url)) {
    shell.openExternal(url).catch((err: unknown) => {
      console.error(`breakwater: could not open ${url}: ${String(err)}`);
    });
  }
}

export function createMainWindow(opts: MainWindowOptions): MainWindow {
  hardenSession();
  const appUrl = rendererUrl(opts.mainDir);

  const window = new BrowserWindow({
    title: 'Breakwater',
    width: 960,
    height: 640,
    minWidth: 480,
    minHeight: 360,
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: join(opts.mainDir, '..', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      spellcheck: false,
    },
  });

  const { webContents } = window;

  // The page may only ever be the app itself; links to allow-listed sites open in the browser.
  webContents.on('will-navigate', (event) => {
    if (isAppUrl(event.url, appUrl)) return;
    event.preventDefault();
    openIfAllowed(event.url);
  });
  webContents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url, appUrl)) event.preventDefault();
  });
  webContents.setWindowOpenHandler(({ url }) => {
    openIfAllowed(url);
    return { action: 'deny' };
  });
  webContents.on('will-attach-webview', (event) => event.preventDefault());

  window.once('ready-to-show', () => window.show());

  // Closing hides: the gateway keeps serving agents. Quitting (menu, Cmd+Q, signal) really closes.
  window.on('close', (event) => {
    if (opts.isQuitting()) return;
    event.preventDefault();
    window.hide();
  });

  void window.loadURL(appUrl).catch((err: unknown) => {
    console.error(`breakwater: could not load ${appUrl}: ${String(err)}`);
  });

  return {
    window,
    appUrl,
    reveal() {
      if (window.isDestroyed()) return;
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    },
  };
}
