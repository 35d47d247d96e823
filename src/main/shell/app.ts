import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { app, Menu, safeStorage, shell } from 'electron';
import { type DesktopAction, IpcChannel, type StartupError } from '../../shared/ipc';
import { defaultDataDir, type SecretCodec, VERSION } from '../engine/index';
import { appMenuTemplate } from './app-menu';
import { parseShellArgs } from './decisions';
import { type DesktopPrefs, loadPrefs, savePrefs } from './desktop-prefs';
import { createGatewayHost } from './gateway-host';
import { forwardEngineEvents, type IpcTarget, push, registerIpcHandlers } from './ipc';
import { watchHost } from './lifecycle';
import { type LogFile, logUncaughtErrors, openLogFile } from './log-file';
import { toggleOpenAtLogin } from './login-item';
import { APP_USER_MODEL_ID, closeHidesWindow, secretSealing, startsHidden } from './policy';
import { copyText, createShellTray, resourcesDir, type ShellTray, showNotice } from './tray';
import type { TrayAction } from './tray-state';
import {
  createUpdateChecker,
  type UpdateChecker,
  type Updater,
  updateFeed,
  updateStatus,
} from './updates';
import { createMainWindow, type MainWindow } from './window';

/** Quitting never waits longer than this for the engine to drain. */
const STOP_DEADLINE_MS = 30_000;

export interface DesktopOptions {
  /** Directory of the built main entry (`out/main`). */
  mainDir: string;
  argv?: readonly string[];
  /** Injected by tests to play another OS; the process's own otherwise. */
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

/** electron-updater, loaded only once a feed is configured (it reads the app's files at load). */
async function loadUpdater(): Promise<Updater> {
  // A CommonJS module: its exports may arrive named or only as `default`.
  const mod = await import('electron-updater');
  return mod.autoUpdater ?? mod.default.autoUpdater;
}

function delay(ms: number): Promise<'timeout'> {
  return new Promise((done) => setTimeout(() => done('timeout'), ms));
}

/** Provider keys at rest, sealed by the OS keychain (Keychain, DPAPI, libsecret). */
const safeStorageCodec: SecretCodec = {
  name: 'safeStorage',
  encrypt: (plain) => safeStorage.encryptString(plain),
  decrypt: (sealed) => safeStorage.decryptString(sealed),
};

/** The keychain codec when sealing protects something; says so in the log either way. */
function keychainCodec(platform: NodeJS.Platform, log: LogFile): SecretCodec | undefined {
  const sealing = secretSealing({
    available: safeStorage.isEncryptionAvailable(),
    backend: platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null,
  });
  if (sealing.warning) {
    log.warn(sealing.warning);
    return undefined;
  }
  log.info(
    'provider keys entered in the desktop app are sealed with the OS keychain: `breakwater serve` on the same data folder cannot read them (give keys both should use as apiKeyEnv)',
  );
  return safeStorageCodec;
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

  const dataDir = app.getPath('userData');
  const log = openLogFile(app.getPath('logs'));
  logUncaughtErrors(log);
  const configPath = args.config ? resolve(args.config) : join(dataDir, 'config.json');
  const prefsFile = join(dataDir, 'desktop.json');
  let prefs: DesktopPrefs = loadPrefs(prefsFile);

  const gateway = createGatewayHost({
    args,
    argErrors: errors,
    dataDir,
    configPath,
    log,
    engineOptions: () => {
      const codec = keychainCodec(platform, log);
      // The packaged app carries the Electron build in its own node_modules; from source,
      // `npm start` says where its separate copy is.
      const binding = app.isPackaged ? undefined : env.BREAKWATER_SQLITE_BINDING;
      return {
        ...(codec ? { secretCodec: codec } : {}),
        ...(binding ? { sqliteBinding: binding } : {}),
      };
    },
  });

  let main: MainWindow | null = null;
  let stopForwarding: (() => void) | null = null;
  let tray: ShellTray | null = null;
  let stopTrayEvents: (() => void) | null = null;
  let stopWatching: (() => void) | null = null;
  let updates: UpdateChecker | null = null;
  let stopFollowing: (() => void) | null = null;
  let quitting = false;
  let shutdownStarted = false;
  let shutdownDone = false;

  const target = (): IpcTarget | null =>
    main && !main.window.isDestroyed()
      ? { webContents: main.window.webContents, appUrl: main.appUrl }
      : null;

  const openPath = (path: string) => {
    void shell.openPath(path).then((problem) => {
      if (problem) log.error(`could not open ${path}: ${problem}`);
    });
  };

  const desktopAction = async (action: DesktopAction): Promise<StartupError | null> => {
    switch (action) {
      case 'retry-other-port': {
        const error = await gateway.retryOnOtherPort();
        tray?.update();
        // The page started against a gateway that was not serving: start it over.
        if (!error) main?.window.webContents.reload();
        return error;
      }
      case 'open-data-folder':
        openPath(dataDir);
        break;
      case 'open-logs':
        openPath(log.path);
        break;
      case 'edit-config':
        // An empty config is valid; the database stays the source of truth for what it omits.
        if (!existsSync(configPath)) writeFileSync(configPath, '{}\n', { mode: 0o600 });
        openPath(configPath);
        break;
    }
    return gateway.currentError();
  };

  async function shutdown(): Promise<void> {
    const work = (async () => {
      await gateway.startupError();
      stopWatching?.();
      stopForwarding?.();
      stopForwarding = null;
      stopTrayEvents?.();
      stopFollowing?.();
      updates?.dispose();
      tray?.dispose();
      tray = null;
      await gateway.engine()?.stop();
    })();
    const outcome = await Promise.race([
      work.then(() => 'stopped' as const),
      delay(STOP_DEADLINE_MS),
    ]);
    if (outcome === 'timeout') {
      log.error(`the engine did not stop within ${STOP_DEADLINE_MS} ms; exiting anyway`);
    }
  }

  const trayInput = () => {
    const engine = gateway.engine();
    const error = gateway.currentError();
    let snapshot = null;
    try {
      snapshot = engine && !error ? engine.snapshot() : null;
    } catch {
      snapshot = null;
    }
    let combos: string[] = [];
    try {
      combos = engine && !error ? engine.admin.listCombos().map((c) => c.name) : [];
    } catch {
      combos = [];
    }
    return {
      snapshot,
      startupError: error?.message ?? null,
      combos,
      ...(updates ? { updates: updateStatus(updates.state()) } : {}),
    };
  };

  /** The tray's active-combo switch: what the model "default" routes to ('' for none). */
  const onCombo = (name: string): void => {
    void gateway
      .engine()
      ?.actions.updateSettings({ 'routing.activeCombo': name || null })
      .then((r) => {
        if (!r.ok) log.error(`switching the active combo failed: ${r.error}`);
        tray?.update();
      });
  };

  const onTrayAction = (action: TrayAction): void => {
    const engine = gateway.engine();
    switch (action) {
      case 'open-dashboard':
        main?.reveal();
        return;
      case 'copy-base-url': {
        const url = trayInput().snapshot?.gateway.baseUrl;
        if (url) copyText(url);
        return;
      }
      case 'pause':
      case 'resume':
        engine?.setPaused(action === 'pause');
        return;
      case 'reset-breakers':
        void engine?.actions.resetBreaker().then((r) => {
          if (!r.ok) log.error(`resetting breakers failed: ${r.error}`);
          tray?.update();
        });
        return;
      case 'toggle-login':
        toggleOpenAtLogin();
        tray?.update();
        return;
      case 'open-logs':
      case 'open-data-folder':
      case 'edit-config':
        void desktopAction(action);
        return;
      case 'check-updates':
        updates?.check();
        return;
      case 'install-update':
        updates?.install();
        return;
      case 'quit':
        app.quit();
        return;
    }
  };

  const startTray = (): void => {
    try {
      tray = createShellTray({
        resourcesDir: resourcesDir(opts.mainDir),
        input: trayInput,
        onAction: onTrayAction,
        onCombo,
        onNotice: (notice) =>
          showNotice(notice, () => {
            main?.reveal();
            push(target(), IpcChannel.navigate, notice.page);
          }),
      });
      stopTrayEvents = gateway.engine()?.onEvent((event) => tray?.push(event)) ?? null;
    } catch (err) {
      // Some Linux desktops have no tray; closing the window then only minimizes it.
      log.error(`no tray icon: ${String(err)}`);
    }
  };

  app.on('second-instance', () => main?.reveal());
  // macOS: clicking the dock icon brings the hidden window back.
  app.on('activate', () => main?.reveal());

  // Quit stops the engine first: hold the quit once, drain, then exit for real.
  app.on('before-quit', (event) => {
    quitting = true;
    if (shutdownDone) return;
    event.preventDefault();
    if (shutdownStarted) return;
    shutdownStarted = true;
    shutdown()
      .catch((err: unknown) => log.error(`stopping the engine failed: ${String(err)}`))
      .finally(() => {
        shutdownDone = true;
        void log.close().finally(() => app.exit(0));
      });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => app.quit());
  }

  app
    .whenReady()
    .then(async () => {
      updates = createUpdateChecker({
        feed: updateFeed({
          packaged: app.isPackaged,
          env,
          prefsUrl: prefs.updateUrl,
          resourcesPath: process.resourcesPath,
        }),
        load: loadUpdater,
        log,
        onReady: (version) =>
          showNotice(
            {
              kind: 'update-ready',
              title: `Breakwater ${version} is ready`,
              body: 'It installs when you quit, or choose "Restart to update" in the tray menu.',
              providers: [],
              page: 'overview',
            },
            () => main?.reveal(),
          ),
        onChange: () => tray?.update(),
      });
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
          appMenuTemplate(platform, app.isPackaged, {
            openLogs: () => void desktopAction('open-logs'),
            openDataFolder: () => void desktopAction('open-data-folder'),
            editConfig: () => void desktopAction('edit-config'),
            quit: () => app.quit(),
          }),
        ),
      );
      registerIpcHandlers({
        target,
        engine: gateway.engine,
        startupError: gateway.startupError,
        desktopAction,
      });
      main = createMainWindow({
        mainDir: opts.mainDir,
        isQuitting: () => quitting,
        closeHides: () =>
          closeHidesWindow({
            platform,
            trayCreated: tray !== null,
            env,
            closeToTray: prefs.closeToTray,
          }),
        startHidden: startsHidden(
          argv,
          platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin,
        ),
        devTools: !app.isPackaged,
        prefs,
        onPlaced: (placed) => {
          prefs = { ...prefs, ...placed };
          savePrefs(prefsFile, prefs).catch((err: unknown) =>
            log.warn(`could not save the window's place: ${String(err)}`),
          );
        },
        onCrash: (message) => log.error(message),
      });
      await gateway.start();
      const engine = gateway.engine();
      if (engine) {
        stopForwarding = forwardEngineEvents(engine, target);
        stopWatching = watchHost(gateway.engine, log, main.window);
        // Moved from the Settings page: the tray shows the new address, the page starts over on it.
        stopFollowing = engine.onEvent((event) => {
          if (event.type !== 'gateway.moved') return;
          tray?.update();
          main?.window.webContents.reload();
        });
      }
      startTray();
      // After the gateway serves: a slow feed must not delay it.
      void updates.start();
    })
    .catch((err: unknown) => {
      // Only a bug gets here; the log has it, and the window says the gateway is not serving.
      log.error(`desktop startup failed: ${err instanceof Error ? err.stack : String(err)}`);
    });
}
