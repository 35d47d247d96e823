// Where the gateway listens, and moving it while it runs (the dashboard's Settings page): the
// address is checked like `serve` checks its own, the new listener is up before the old one
// stops, and the choice is saved for the next start.
import { isIP } from 'node:net';
import type { GatewayView } from '../../../shared/contract';
import { ValidationError } from '../config/validate';
import type { Logger } from '../logger';
import type { SettingsRepo } from '../store';
import { AddressError } from '../wire/address-error';
import { isLoopbackHost } from '../wire/guard';
import type { GatewayServer } from './server';

export type ListenInfo = Pick<GatewayView, 'host' | 'port' | 'baseUrl'>;

/** Store key of the address chosen from the dashboard (not a registry setting: it rebinds). */
export const SAVED_ADDRESS = 'gateway.address';

/** Why a host may not be bound, or null: the rule `serve` applies at start. */
export function bindRefusal(host: string, liveKeys: number): string | null {
  if (isLoopbackHost(host) || liveKeys > 0) return null;
  return `refusing to listen on ${host}: a non-loopback address needs a gateway API key (gateway.apiKeys in the config, or one created with breakwater keys create), otherwise anyone on the network could use your providers`;
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;

/** `{host, port}` as the admin API takes it: a port of 1-65535, an IP address or a hostname. */
export function validateAddress(
  input: unknown,
  current: ListenInfo,
): { host: string; port: number } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('body', 'must be a JSON object: {"host", "port"}');
  }
  const { host = current.host, port = current.port } = input as Record<string, unknown>;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
    throw new ValidationError('port', 'must be an integer from 1 to 65535');
  }
  if (typeof host !== 'string') throw new ValidationError('host', 'must be a string');
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (!isIP(bare) && !HOSTNAME.test(bare)) {
    throw new ValidationError('host', 'must be an IP address or a hostname (e.g. 127.0.0.1)');
  }
  return { host: bare, port: port as number };
}

export function infoOf(host: string, port: number): ListenInfo {
  const shown = host.includes(':') ? `[${host}]` : host;
  return { host, port, baseUrl: `http://${shown}:${port}` };
}

interface SavedAddress {
  host: string;
  port: number;
  /** What the config file said when it was saved: a later edit of the file wins. */
  over: { host: string; port: number };
}

function savedOf(raw: unknown): SavedAddress | null {
  const s = raw as Partial<SavedAddress> | undefined;
  if (!s || typeof s.host !== 'string' || !Number.isInteger(s.port) || !s.over) return null;
  return s as SavedAddress;
}

/** Where the config file and the `--host`/`--port` flags put the gateway. */
export interface Configured {
  /** `gateway.host` / `gateway.port` of the config file, else the defaults. */
  file: { host: string; port: number };
  flags: { host?: string | undefined; port?: number | undefined };
}

/** The flags over the config file: what `serve` checks and binds when nothing was saved. */
export function configuredAddress(c: Configured): { host: string; port: number } {
  return { host: c.flags.host ?? c.file.host, port: c.flags.port ?? c.file.port };
}

/**
 * The address to start on: a flag wins for its run; else the dashboard's saved choice, unless
 * the config file changed since it was made or its host is no longer allowed (no live keys).
 */
export function startAddress(
  c: Configured,
  saved: unknown,
  liveKeys: number,
  log: Logger,
): { host: string; port: number } {
  const configured = configuredAddress(c);
  const s = savedOf(saved);
  if (!s || c.flags.host !== undefined || c.flags.port !== undefined) return configured;
  if (s.over.host !== c.file.host || s.over.port !== c.file.port) return configured;
  const refusal = bindRefusal(s.host, liveKeys);
  if (refusal) {
    log.warn(`${refusal}; starting on ${configured.host} instead of the saved address`);
    return configured;
  }
  return { host: s.host, port: s.port };
}

export interface BindingOptions {
  server: GatewayServer;
  /** What the config file asks for (recorded with a saved choice). */
  file: { host: string; port: number };
  start: { host: string; port: number };
  settings: SettingsRepo;
  liveKeys(): number;
  log: Logger;
  /** The gateway moved (the dashboard follows it). */
  onMoved(info: ListenInfo, from: string): void;
}

export interface Binding {
  info(): ListenInfo;
  /** First bind, or the desktop's retry on another port (same host). */
  listen(port?: number): Promise<ListenInfo>;
  /** Moves to another address while serving; the old one serves until the new one is up. */
  move(input: unknown): Promise<ListenInfo>;
}

export function createBinding(opts: BindingOptions): Binding {
  let info = infoOf(opts.start.host, opts.start.port);
  // Binds one at a time: two moves in flight would both replace the same listener, and the first
  // new one would serve on, unseen, after the second took its place. A move also reads the
  // address it starts from (an omitted field is kept), which must be where the last one left it.
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(job: () => Promise<T>): Promise<T> => {
    const turn = last.then(job, job);
    last = turn.catch(() => {});
    return turn;
  };

  return {
    info: () => info,
    listen: (port = opts.start.port) =>
      inTurn(async () => {
        info = infoOf(info.host, await opts.server.listen(info.host, port));
        return info;
      }),
    move: (input) => inTurn(() => moveTo(input)),
  };

  async function moveTo(input: unknown): Promise<ListenInfo> {
    const next = validateAddress(input, info);
    const refusal = bindRefusal(next.host, opts.liveKeys());
    if (refusal) {
      throw new AddressError(
        400,
        'gateway_keys_required',
        `${refusal} (create one on the Usage page first)`,
        'host',
      );
    }
    if (next.host === info.host && next.port === info.port) return info;
    let port: number;
    try {
      port = await opts.server.listen(next.host, next.port);
    } catch (err) {
      throw addressError(err as NodeJS.ErrnoException, next, info);
    }
    const from = info.baseUrl;
    info = infoOf(next.host, port);
    opts.settings.set(SAVED_ADDRESS, { ...next, over: opts.file });
    opts.log.info(`Breakwater listening on ${info.baseUrl} (moved from ${from})`);
    opts.onMoved(info, from);
    return info;
  }
}

function addressError(
  err: NodeJS.ErrnoException,
  next: { host: string; port: number },
  current: ListenInfo,
): Error {
  const still = `; still serving on ${current.baseUrl}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new AddressError(
        409,
        'address_in_use',
        `port ${next.port} on ${next.host} is already in use by another program${still}`,
        'port',
      );
    case 'EACCES':
      return new AddressError(
        409,
        'address_forbidden',
        `this user may not listen on port ${next.port} (ports below 1024 need privileges)${still}`,
        'port',
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new AddressError(
        400,
        'address_unavailable',
        `${next.host} is not an address of this machine${still}`,
        'host',
      );
    default:
      return err;
  }
}
