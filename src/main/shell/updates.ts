// Update checks with electron-updater. Off until a release feed is configured: without one the
// updater is not even loaded, so nothing goes to the network. Never on in a development
// (unpackaged) run. With a feed: a check at start, every `intervalMs`, and from the tray; an
// update downloads in the background, a notification says when it is ready, and it installs on
// quit or from "Restart to update".
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppUpdater } from 'electron-updater';

/** Checks this often once a feed is configured. */
export const UPDATE_CHECK_INTERVAL_MS = 6 * 3_600_000;

/** Where updates come from, or why there are none. */
export type UpdateFeed =
  | { kind: 'off'; reason: string }
  /** `url` null: the feed electron-builder wrote into the package (`app-update.yml`). */
  | { kind: 'on'; url: string | null };

export interface FeedInput {
  packaged: boolean;
  env: NodeJS.ProcessEnv;
  /** `updateUrl` of desktop.json. */
  prefsUrl?: string | undefined;
  /** `process.resourcesPath` of the packaged app. */
  resourcesPath: string | undefined;
}

/** A feed URL must be http(s); anything else is ignored with the reason. */
function feedUrl(raw: string): string | { problem: string } {
  try {
    const url = new URL(raw);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // not a URL at all
  }
  return { problem: `the update feed "${raw}" is not an http(s) URL` };
}

/**
 * The feed, first found wins: `BREAKWATER_UPDATE_URL`, `updateUrl` in desktop.json, the feed the
 * package was built with (`BREAKWATER_UPDATE_URL=… npm run package` writes app-update.yml).
 */
export function updateFeed(input: FeedInput): UpdateFeed {
  if (!input.packaged) return { kind: 'off', reason: 'Updates: development build' };
  const raw = input.env.BREAKWATER_UPDATE_URL?.trim() || input.prefsUrl?.trim();
  if (raw) {
    const url = feedUrl(raw);
    return typeof url === 'string'
      ? { kind: 'on', url }
      : { kind: 'off', reason: `Updates not configured: ${url.problem}` };
  }
  if (input.resourcesPath && existsSync(join(input.resourcesPath, 'app-update.yml'))) {
    return { kind: 'on', url: null };
  }
  return { kind: 'off', reason: 'Updates not configured' };
}

export type UpdateState =
  | { phase: 'off'; reason: string }
  | { phase: 'idle' | 'checking' | 'latest' }
  | { phase: 'downloading' | 'ready'; version: string }
  | { phase: 'error'; message: string };

/** What the tray shows for a state. */
export function updateStatus(state: UpdateState): {
  label: string;
  canCheck: boolean;
  canInstall: boolean;
} {
  const busy = state.phase === 'checking' || state.phase === 'downloading';
  const label = (() => {
    switch (state.phase) {
      case 'off':
        return state.reason;
      case 'idle':
        return 'Updates: not checked yet';
      case 'checking':
        return 'Checking for updates…';
      case 'latest':
        return 'Up to date';
      case 'downloading':
        return `Downloading update ${state.version}…`;
      case 'ready':
        return `Update ${state.version} ready`;
      case 'error':
        return `Update check failed: ${state.message}`;
    }
  })();
  return {
    label: label.length > 80 ? `${label.slice(0, 79)}…` : label,
    canCheck: state.phase !== 'off' && !busy,
    canInstall: state.phase === 'ready',
  };
}

/** The parts of electron-updater's AppUpdater the checker uses (tests pass a fake). */
export type Updater = Pick<
  AppUpdater,
  'on' | 'checkForUpdates' | 'quitAndInstall' | 'setFeedURL' | 'autoDownload'
> & { autoInstallOnAppQuit: boolean; logger: AppUpdater['logger'] };

export interface UpdateCheckerOptions {
  feed: UpdateFeed;
  /** Loads electron-updater's autoUpdater; only called when a feed is configured. */
  load(): Promise<Updater>;
  log: { info(line: string): void; warn(line: string): void; error(line: string): void };
  /** A downloaded update, ready to install. */
  onReady(version: string): void;
  /** Any state change (the tray re-reads the status). */
  onChange(): void;
  intervalMs?: number;
}

export interface UpdateChecker {
  state(): UpdateState;
  /** Loads the updater and checks now and every interval; does nothing when off. */
  start(): Promise<void>;
  check(): void;
  /** Quits and installs the downloaded update (the quit drains the engine first). */
  install(): void;
  dispose(): void;
}

export function createUpdateChecker(opts: UpdateCheckerOptions): UpdateChecker {
  let state: UpdateState =
    opts.feed.kind === 'off' ? { phase: 'off', reason: opts.feed.reason } : { phase: 'idle' };
  let updater: Updater | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  const set = (next: UpdateState) => {
    state = next;
    opts.onChange();
  };
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

  const check = () => {
    // A download in progress or done is not thrown away by another check.
    if (!updater || state.phase === 'downloading' || state.phase === 'ready') return;
    updater.checkForUpdates().catch((err: unknown) => {
      opts.log.warn(`update check failed: ${message(err)}`);
      set({ phase: 'error', message: message(err) });
    });
  };

  return {
    state: () => state,
    async start() {
      const feed = opts.feed;
      if (feed.kind === 'off' || updater) return;
      try {
        updater = await opts.load();
      } catch (err) {
        set({ phase: 'error', message: `electron-updater could not load: ${message(err)}` });
        return;
      }
      updater.logger = opts.log;
      updater.autoDownload = true;
      updater.autoInstallOnAppQuit = true;
      if (feed.url) updater.setFeedURL({ provider: 'generic', url: feed.url });
      // A check started elsewhere (electron-updater's own) must not hide a downloaded update.
      updater.on('checking-for-update', () => {
        if (state.phase !== 'ready') set({ phase: 'checking' });
      });
      updater.on('update-not-available', () => set({ phase: 'latest' }));
      updater.on('update-available', (info) =>
        set({ phase: 'downloading', version: info.version }),
      );
      updater.on('update-downloaded', (info) => {
        opts.log.info(`update ${info.version} downloaded; it installs when Breakwater quits`);
        set({ phase: 'ready', version: info.version });
        opts.onReady(info.version);
      });
      updater.on('error', (err) => {
        // A failed download goes back to checkable; the error says why.
        opts.log.warn(`updater: ${message(err)}`);
        set({ phase: 'error', message: message(err) });
      });
      check();
      timer = setInterval(check, opts.intervalMs ?? UPDATE_CHECK_INTERVAL_MS);
      timer.unref?.();
    },
    check,
    install() {
      if (updater && state.phase === 'ready') updater.quitAndInstall();
    },
    dispose() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
