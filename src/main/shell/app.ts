import { join, resolve } from 'node:path';
import { app, Menu } from 'electron';
import { defaultDataDir, VERSION } from '../engine/index';
import { appMenuTemplate } from './app-menu';
import { parseShellArgs, type ShellArgs } from './decisions';
import { desktopAction } from './desktop-actions';
import { loadPrefs } from './desktop-prefs';
import { type DesktopSession, ipcTarget } from './desktop-session';
import { desktopEngineOptions } from './engine-options';
import { createGatewayHost } from './gateway-host';
import { forwardEngineEvents, registerIpcHandlers } from './ipc';
import { watchHost } from './lifecycle';
import { logUncaughtErrors, openLogFile } from './log-file';
import { APP_USER_MODEL_ID } from './policy';
import { stopEngineOnQuit } from './quit';
import { startTray } from './tray-wiring';
import { createDesktopUpdates } from './update-wiring';
import { type UpdateChecker, updateStatus } from './updates';
import type { MainWindow } from './window';
import { openMainWindow } from './window-wiring';

export interface DesktopOptions {
  /** Directory of the built main entry (`out/main`). */
  mainDir: string;
  argv?: readonly string[];
  /** Injected by tests to play another OS; the process's own otherwise. */
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

/** Once the single-instance lock is held: the log, the files, and the gateway (not started). */
function openSession(
  opts: DesktopOptions,
  launch: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; argv: readonly string[] },
  args: ShellArgs,
  argErrors: readonly string[],
): DesktopSession {
  const { platform, env } = launch;
  const dataDir = app.getPath('userData');
  const log = openLogFile(app.getPath('logs'));
  logUncaughtErrors(log);
  const configPath = args.config ? resolve(args.config) : join(dataDir, 'config.json');
  const prefsFile = join(dataDir, 'desktop.json');
  const prefs = loadPrefs(prefsFile);
  const gateway = createGatewayHost({
    args,
    argErrors,
    dataDir,
    configPath,
    log,
    engineOptions: () => desktopEngineOptions(platform, env, log),
  });
  return {
    mainDir: opts.mainDir,
    ...launch,
    dataDir,
    configPath,
    prefsFile,
    log,
    gateway,
    prefs,
    main: null,
    tray: null,
    updates: null,
    quitting: false,
    stopForwarding: null,
    stopTrayEvents: null,
    stopWatching: null,
    stopFollowing: null,
  };
}

/** The About panel (with the update status) and the application menu. */
function installAppChrome(s: DesktopSession, updates: UpdateChecker): void {
  app.setAboutPanelOptions({
    credits: updateStatus(updates.state()).label,
    applicationName: 'Breakwater',
    applicationVersion: VERSION,
    version: VERSION,
    copyright: 'Copyright © Breakwater contributors',
    website: 'https://github.com/breakwater-gateway/breakwater',
  });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      appMenuTemplate(s.platform, app.isPackaged, {
        openLogs: () => void desktopAction(s, 'open-logs'),
        openDataFolder: () => void desktopAction(s, 'open-data-folder'),
        editConfig: () => void desktopAction(s, 'edit-config'),
        quit: () => app.quit(),
      }),
    ),
  );
}

/** Once the engine runs: its events to the window, its health watched, its moves followed. */
function followEngine(s: DesktopSession, main: MainWindow): void {
  const engine = s.gateway.engine();
  if (!engine) return;
  s.stopForwarding = forwardEngineEvents(engine, () => ipcTarget(s));
  s.stopWatching = watchHost(s.gateway.engine, s.log, main.window);
  // Moved from the Settings page: the tray shows the new address, the page starts over on it.
  s.stopFollowing = engine.onEvent((event) => {
    if (event.type !== 'gateway.moved') return;
    s.tray?.update();
    s.main?.window.webContents.reload();
  });
}

/** When Electron is ready: menus, IPC and the window first, so the page can show a failed start. */
async function startDesktop(s: DesktopSession): Promise<void> {
  const updates = createDesktopUpdates(s);
  s.updates = updates;
  installAppChrome(s, updates);
  registerIpcHandlers({
    target: () => ipcTarget(s),
    engine: s.gateway.engine,
    startupError: s.gateway.startupError,
    desktopAction: (action) => desktopAction(s, action),
  });
  const main = openMainWindow(s);
  s.main = main;
  await s.gateway.start();
  followEngine(s, main);
  startTray(s);
  // After the gateway serves: a slow feed must not delay it.
  void updates.start();
}

/** The desktop host: one window, the engine, IPC between them, the tray, and a clean quit. */
export function runDesktopApp(opts: DesktopOptions): void {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const argv = opts.argv ?? process.argv;
  const { args, errors } = parseShellArgs(argv);
  // Before anything reads userData: the single-instance lock and Chromium's profile live there.
  // The same data dir as `breakwater serve`, so both hosts share one database and admin token.
  app.setPath('userData', resolve(args.dataDir ?? defaultDataDir(env)));
  // Windows shows toasts only for an app with an AppUserModelID (the installer's shortcut's).
  if (platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);

  if (!app.requestSingleInstanceLock()) {
    // The running instance gets 'second-instance' and shows its window.
    app.quit();
    return;
  }

  const s = openSession(opts, { platform, env, argv }, args, errors);
  app.on('second-instance', () => s.main?.reveal());
  // macOS: clicking the dock icon brings the hidden window back.
  app.on('activate', () => s.main?.reveal());
  // Quit stops the engine first.
  stopEngineOnQuit(s);

  app
    .whenReady()
    .then(() => startDesktop(s))
    .catch((err: unknown) => {
      // Only a bug gets here; the log has it, and the window says the gateway is not serving.
      s.log.error(`desktop startup failed: ${err instanceof Error ? err.stack : String(err)}`);
    });
}
