import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { app, safeStorage } from 'electron';
import type { BreakwaterConfig } from '../../shared/contract';
import { IpcChannel, type StartupError } from '../../shared/ipc';
import {
  createEngine,
  defaultDataDir,
  type Engine,
  loadConfigFile,
  type SecretCodec,
} from '../engine/index';
import { describeStartupError, parseShellArgs, type ShellArgs } from './decisions';
import { forwardEngineEvents, type IpcTarget, push, registerIpcHandlers } from './ipc';
import {
  copyText,
  createShellTray,
  resourcesDir,
  type ShellTray,
  showNotice,
  toggleOpenAtLogin,
} from './tray';
import type { TrayAction } from './tray-state';
import { createMainWindow, type MainWindow } from './window';

/** Quitting never waits longer than this for the engine to drain. */
const STOP_DEADLINE_MS = 30_000;

export interface DesktopOptions {
  /** Directory of the built main entry (`out/main`). */
  mainDir: string;
  argv?: readonly string[];
}

/** `--config FILE` when given, else `<userData>/config.json` when present, else none. */
function loadConfig(args: ShellArgs): BreakwaterConfig | undefined {
  if (args.config) return loadConfigFile(resolve(args.config));
  const file = join(app.getPath('userData'), 'config.json');
  return existsSync(file) ? loadConfigFile(file) : undefined;
}

/** The address the engine tried to bind (its snapshot knows the defaults), for error text. */
function gatewayAddress(
  args: ShellArgs,
  config: BreakwaterConfig | undefined,
  engine: Engine,
): { host?: string; port?: number } {
  try {
    const { host, port } = engine.snapshot().gateway;
    return { host, port };
  } catch {
    return { host: args.host ?? config?.gateway?.host, port: args.port ?? config?.gateway?.port };
  }
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

/** The desktop host: one window, the engine, IPC between them, and a clean quit. */
export function runDesktopApp(opts: DesktopOptions): void {
  const { args, errors } = parseShellArgs(opts.argv ?? process.argv);
  // Before anything reads userData: the single-instance lock and Chromium's profile live there.
  // The same data dir as `breakwater serve`, so both hosts share one database and admin token.
  app.setPath('userData', resolve(args.dataDir ?? defaultDataDir()));

  if (!app.requestSingleInstanceLock()) {
    // The running instance gets 'second-instance' and shows its window.
    app.quit();
    return;
  }

  let main: MainWindow | null = null;
  let engine: Engine | null = null;
  let stopForwarding: (() => void) | null = null;
  let tray: ShellTray | null = null;
  let stopTrayEvents: (() => void) | null = null;
  let startupError: StartupError | null = null;
  let quitting = false;
  let shutdownStarted = false;
  let shutdownDone = false;

  let settleStartup: (error: StartupError | null) => void = () => {};
  const startup = new Promise<StartupError | null>((done) => {
    settleStartup = done;
  });

  const target = (): IpcTarget | null =>
    main && !main.window.isDestroyed()
      ? { webContents: main.window.webContents, appUrl: main.appUrl }
      : null;

  async function start(): Promise<StartupError | null> {
    if (errors.length > 0) return { code: 'args', message: errors.join('; ') };
    let config: BreakwaterConfig | undefined;
    try {
      config = loadConfig(args);
    } catch (err) {
      return describeStartupError(err, 'config');
    }
    let created: Engine;
    try {
      // Opening the store loads the native SQLite module: one built for another Node ABI fails
      // inside this try, so the window still opens and says why.
      created = createEngine({
        config,
        dataDir: app.getPath('userData'),
        host: args.host,
        port: args.port,
        ...(safeStorage.isEncryptionAvailable() ? { secretCodec: safeStorageCodec } : {}),
      });
    } catch (err) {
      return describeStartupError(err, 'engine');
    }
    engine = created;
    stopForwarding = forwardEngineEvents(created, target);
    try {
      const info = await created.listen();
      console.log(`Breakwater listening on ${info.baseUrl}`);
      return null;
    } catch (err) {
      return describeStartupError(err, 'listen', gatewayAddress(args, config, created));
    }
  }

  async function shutdown(): Promise<void> {
    const work = (async () => {
      await startup;
      stopForwarding?.();
      stopForwarding = null;
      stopTrayEvents?.();
      tray?.dispose();
      tray = null;
      await engine?.stop();
    })();
    const outcome = await Promise.race([
      work.then(() => 'stopped' as const),
      delay(STOP_DEADLINE_MS),
    ]);
    if (outcome === 'timeout') {
      console.error(
        `breakwater: the engine did not stop within ${STOP_DEADLINE_MS} ms; exiting anyway`,
      );
    }
  }

  const trayInput = () => {
    let snapshot = null;
    try {
      snapshot = engine && !startupError ? engine.snapshot() : null;
    } catch {
      snapshot = null;
    }
    return { snapshot, startupError: startupError?.message ?? null };
  };

  const onTrayAction = (action: TrayAction): void => {
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
          if (!r.ok) console.error(`breakwater: resetting breakers failed: ${r.error}`);
          tray?.update();
        });
        return;
      case 'toggle-login':
        toggleOpenAtLogin();
        tray?.update();
        return;
      case 'quit':
        app.quit();
        return;
    }
  };

  const startTray = (mainDir: string): void => {
    try {
      tray = createShellTray({
        resourcesDir: resourcesDir(mainDir),
        input: trayInput,
        onAction: onTrayAction,
        onNotice: (notice) =>
          showNotice(notice, () => {
            main?.reveal();
            push(target(), IpcChannel.navigate, notice.page);
          }),
      });
      stopTrayEvents = engine?.onEvent((event) => tray?.push(event)) ?? null;
    } catch (err) {
      // Some Linux desktops have no tray; the window still works.
      console.error(`breakwater: no tray icon: ${String(err)}`);
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
      .catch((err: unknown) => {
        console.error(`breakwater: stopping the engine failed: ${String(err)}`);
      })
      .finally(() => {
        shutdownDone = true;
        app.exit(0);
      });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => app.quit());
  }

  app
    .whenReady()
    .then(async () => {
      registerIpcHandlers({ target, engine: () => engine, startupError: () => startup });
      main = createMainWindow({ mainDir: opts.mainDir, isQuitting: () => quitting });
      const error = await start();
      if (error) console.error(`breakwater: the gateway did not start: ${error.message}`);
      startupError = error;
      settleStartup(error);
      startTray(opts.mainDir);
    })
    .catch((err: unknown) => {
      // Only a bug gets here; still let the window tell the user rather than hang on "starting".
      console.error('breakwater: desktop startup failed', err);
      settleStartup(describeStartupError(err, 'engine'));
    });
}
