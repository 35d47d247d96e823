// Pure decisions of the desktop shell: argument parsing, URL policy, event batching, error text.
// No 'electron' import here, so every rule can be unit-tested under plain Node.

import type { StartupError } from '../../shared/ipc';

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

/** Flags the desktop app shares with `breakwater serve`. */
export interface ShellArgs {
  config?: string;
  host?: string;
  port?: number;
  dataDir?: string;
}

const FLAGS = {
  '--config': 'config',
  '--host': 'host',
  '--port': 'port',
  '--data-dir': 'dataDir',
} as const satisfies Record<string, keyof ShellArgs>;

type Flag = keyof typeof FLAGS;

function isFlag(name: string): name is Flag {
  return Object.hasOwn(FLAGS, name);
}

/**
 * Reads `--config FILE`, `--host H`, `--port P`, `--data-dir DIR` (also `--flag=value`) from
 * argv. Anything else (the Electron binary, `.`, Chromium switches) is ignored.
 */
export function parseShellArgs(argv: readonly string[]): { args: ShellArgs; errors: string[] } {
  const args: ShellArgs = {};
  const errors: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    const eq = token.indexOf('=');
    const name = eq === -1 ? token : token.slice(0, eq);
    if (!isFlag(name)) continue;
    let value: string | undefined;
    if (eq !== -1) {
      value = token.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '') {
      errors.push(`${name} needs a value`);
      continue;
    }
    const key = FLAGS[name];
    if (key === 'port') {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        errors.push(`--port must be an integer from 0 to 65535, got "${value}"`);
        continue;
      }
      args.port = port;
    } else {
      args[key] = value;
    }
  }
  return { args, errors };
}

// ---------------------------------------------------------------------------
// URL policy
// ---------------------------------------------------------------------------

/**
 * Origins the window may open in the user's browser (`shell.openExternal`); everything else is
 * denied. Keep this list short: only pages the app itself links to.
 */
export const EXTERNAL_ORIGINS: readonly string[] = ['https://github.com'];

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True when `candidate` is the app's own page: the same file for a built app (`file://…/index.html`,
 * query and hash ignored), the same origin for the dev server.
 */
export function isAppUrl(candidate: string, appUrl: string): boolean {
  const url = parseUrl(candidate);
  const app = parseUrl(appUrl);
  if (!url || !app) return false;
  if (app.protocol === 'file:') {
    return url.protocol === 'file:' && url.host === app.host && url.pathname === app.pathname;
  }
  if (app.protocol !== 'http:' && app.protocol !== 'https:') return false;
  return url.origin === app.origin;
}

/** True for an https URL without credentials whose origin is on the allow-list. */
export function isAllowedExternalUrl(candidate: string, allowed = EXTERNAL_ORIGINS): boolean {
  const url = parseUrl(candidate);
  if (url?.protocol !== 'https:') return false;
  if (url.username !== '' || url.password !== '') return false;
  return allowed.includes(url.origin);
}

// ---------------------------------------------------------------------------
// Event batching
// ---------------------------------------------------------------------------

export interface EventBatcher<T> {
  push(item: T): void;
  /** Sends whatever is buffered now (used before the window goes away). */
  flush(): void;
  /** Drops the buffer and the pending timer. */
  dispose(): void;
}

export interface EventBatcherOptions<T> {
  intervalMs: number;
  /** Buffer cap per batch; on overflow the oldest items are dropped (a snapshot refetch heals). */
  maxBatch: number;
  send(batch: T[]): void;
  /** Injected for tests; returns a cancel function. */
  schedule?: (fn: () => void, ms: number) => () => void;
}

const defaultSchedule = (fn: () => void, ms: number): (() => void) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

/**
 * Buffers items and sends them as one array at most once per `intervalMs`: the first item of a
 * quiet period starts the timer, everything that arrives before it fires rides along.
 */
export function createEventBatcher<T>(opts: EventBatcherOptions<T>): EventBatcher<T> {
  const schedule = opts.schedule ?? defaultSchedule;
  let buffer: T[] = [];
  let cancel: (() => void) | null = null;

  const flush = (): void => {
    cancel?.();
    cancel = null;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    opts.send(batch);
  };

  return {
    push(item) {
      buffer.push(item);
      if (buffer.length > opts.maxBatch) buffer.splice(0, buffer.length - opts.maxBatch);
      cancel ??= schedule(flush, opts.intervalMs);
    },
    flush,
    dispose() {
      cancel?.();
      cancel = null;
      buffer = [];
    },
  };
}

// ---------------------------------------------------------------------------
// Startup errors
// ---------------------------------------------------------------------------

/** Where the gateway tried to listen and where that is configured, for the port-taken screen. */
export interface StartupWhere {
  host?: string;
  port?: number;
  configPath?: string;
  dataDir?: string;
}

/** Turns a startup failure into the text the window shows. */
export function describeStartupError(
  err: unknown,
  stage: 'args' | 'config' | 'engine' | 'listen',
  where: StartupWhere = {},
): StartupError {
  const code = (err as { code?: unknown } | null)?.code;
  if (stage === 'listen' && code === 'EADDRINUSE') {
    const address =
      where.port !== undefined
        ? `${where.host ?? '127.0.0.1'}:${where.port}`
        : 'the gateway address';
    const file = where.configPath ? ` in ${where.configPath}` : ' in the config file';
    return {
      code: 'EADDRINUSE',
      message:
        `${address} is already in use (another Breakwater, or another program, is listening there). ` +
        `Retry on another port, or stop that program, or set gateway.port${file} (or --port) and restart.`,
      ...where,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/NODE_MODULE_VERSION/.test(message)) {
    // The Node build of better-sqlite3 under Electron: started without `npm start`'s own copy.
    return {
      code: 'native-module',
      message: `${message}. Start the desktop app with \`npm start\`, which gets better-sqlite3 built for Electron (or run \`npm run serve\`).`,
    };
  }
  return { code: typeof code === 'string' ? code : stage, message };
}
