import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, screen, session, shell } from 'electron';
import { isAllowedExternalUrl, isAppUrl } from './decisions';
import { type DesktopPrefs, placeOnScreen, type Rect } from './desktop-prefs';
import { permissionGranted, shouldReload } from './policy';

/** Moves and resizes are saved this long after the last one. */
const BOUNDS_SAVE_DELAY_MS = 500;

export interface MainWindowOptions {
  /** Directory of the built main entry (`out/main`); preload and renderer are found next to it. */
  mainDir: string;
  /** True once the app is quitting: closing then really closes instead of hiding. */
  isQuitting(): boolean;
  /** Whether closing hides the window to the tray (else it only minimizes: no visible tray). */
  closeHides(): boolean;
  /** Launched at login: stay in the tray. */
  startHidden: boolean;
  /** DevTools open only in development. */
  devTools: boolean;
  /** Where the window was last time, and where to tell when it moves. */
  prefs: DesktopPrefs;
  onPlaced(placed: { bounds: Rect; maximized: boolean }): void;
  onCrash(message: string): void;
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

/** Only the app's own page, only the clipboard write of its Copy buttons (policy.ts). */
function hardenSession(appUrl: string): void {
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(permissionGranted(permission, details.requestingUrl ?? contents?.getURL(), appUrl));
  });
  session.defaultSession.setPermissionCheckHandler((contents, permission, _origin, details) =>
    permissionGranted(permission, details.requestingUrl ?? contents?.getURL(), appUrl),
  );
}

function openIfAllowed(url: string): void {
  if (isAllowedExternalUrl(url)) {
    shell.openExternal(url).catch((err: unknown) => {
      console.error(`breakwater: could not open ${url}: ${String(err)}`);
    });
  }
}

export function createMainWindow(opts: MainWindowOptions): MainWindow {
  const appUrl = rendererUrl(opts.mainDir);
  hardenSession(appUrl);
  const placed = placeOnScreen(
    opts.prefs.bounds,
    screen.getAllDisplays().map((d) => d.workArea),
  );

  const window = new BrowserWindow({
    title: 'Breakwater',
    width: 960,
    height: 640,
    ...placed,
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
      devTools: opts.devTools,
    },
  });
  if (placed && opts.prefs.maximized) window.maximize();

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

  // A crashed renderer leaves a blank window: load the page again (not in a crash loop).
  let reloads: number[] = [];
  webContents.on('render-process-gone', (_event, details) => {
    const decided = shouldReload(details.reason, reloads, Date.now());
    reloads = decided.times;
    opts.onCrash(
      `the window's renderer is gone (${details.reason}, exit code ${details.exitCode})${decided.reload ? '; reloading' : ''}`,
    );
    if (decided.reload && !window.isDestroyed()) webContents.reload();
  });

  if (!opts.startHidden) window.once('ready-to-show', () => window.show());

  // Closing hides: the gateway keeps serving agents. Quitting (menu, Cmd+Q, signal) really closes.
  // Without a visible tray icon it minimizes instead, so the app stays in sight.
  window.on('close', (event) => {
    if (opts.isQuitting()) return;
    event.preventDefault();
    if (opts.closeHides()) window.hide();
    else window.minimize();
  });

  let saveTimer: NodeJS.Timeout | undefined;
  const notePlace = () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      if (window.isDestroyed()) return;
      opts.onPlaced({ bounds: window.getNormalBounds(), maximized: window.isMaximized() });
    }, BOUNDS_SAVE_DELAY_MS);
  };
  window.on('resize', notePlace);
  window.on('move', notePlace);
  window.on('maximize', notePlace);
  window.on('unmaximize', notePlace);

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
