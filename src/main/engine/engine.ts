import type { AdminActions } from '../../shared/admin-client';
import type { BreakwaterConfig, EngineEvent, Snapshot } from '../../shared/contract';
import { createAdminActions } from './admin/actions';
import type { AdminService } from './admin/service';
import { loadAdminToken } from './admin/token';
import { buildAccounts } from './assembly/accounts';
import { buildAdmin } from './assembly/admin';
import { catalogSource } from './assembly/catalog';
import type { EngineParts, Foundation } from './assembly/parts';
import { buildPipeline } from './assembly/pipeline';
import { buildResilience } from './assembly/resilience';
import { bindServer, buildServer } from './assembly/server';
import { shutDown } from './assembly/shutdown';
import { snapshotOf } from './assembly/snapshot';
import { gatewayStatus } from './assembly/status';
import { openStorage } from './assembly/storage';
import { BoundedMaps } from './bounded-map';
import { type Clock, systemClock } from './clock';
import { ValidationError, validateConfig } from './config/validate';
import { prepareDataDir } from './data-dir';
import { EventBus } from './events';
import { tuneGarbageCollection } from './gc-tuning';
import { createStderrLogger, type Logger } from './logger';
import { type Configured, configuredAddress, type ListenInfo } from './proxy/binding';
import type { HostNetworkEvent } from './resilience/health';
import { openStateBackend } from './state';
import type { SecretCodec } from './store';
import { UpstreamPools } from './upstream/pools';

export const DEFAULT_PORT = 4141;
export const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** How often expired sessions, prefixes and the like are dropped (between requests too). */
const BOUNDED_MAP_SWEEP_MS = 60_000;

export interface EngineOptions {
  config?: BreakwaterConfig;
  dataDir: string;
  /** Overrides `gateway.host` of the config. */
  host?: string;
  /** Overrides `gateway.port` of the config; 0 picks a free port. */
  port?: number;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Random source in [0, 1) for jitter (the subscription lane's waits); tests pass a fixed one. */
  random?: () => number;
  log?: Logger;
  /** Built renderer (`out/renderer`) to serve as the browser dashboard at `/ui`. */
  uiDir?: string;
  /** Seals literal provider keys at rest (the desktop host passes the OS keychain's). */
  secretCodec?: SecretCodec;
  /** Base URL per local preset id for first-run detection instead of its default port. */
  localServerUrls?: Readonly<Record<string, string>>;
  /** better-sqlite3's native module built for another runtime (the desktop host under Electron). */
  sqliteBinding?: string;
}

export type { ListenInfo };

export interface Engine {
  readonly adminToken: string;
  readonly admin: AdminService;
  /** The admin API's operations in process, with its answers: the desktop's IPC calls them. */
  readonly actions: AdminActions;
  /** Binds the configured port, or `port` (the desktop's "retry on another port"). */
  listen(port?: number): Promise<ListenInfo>;
  stop(opts?: { graceMs?: number }): Promise<void>;
  snapshot(): Snapshot;
  onEvent(listener: (e: EngineEvent) => void): () => void;
  /** True while the proxy refuses requests with 503 `gateway_paused`. */
  readonly paused: boolean;
  /** Pauses or resumes the proxy; emits `gateway.paused` / `gateway.resumed` on a change. */
  setPaused(paused: boolean): void;
  /** The machine slept, woke or lost its network: network failures then do not count for a while. */
  noteHostNetwork(event: HostNetworkEvent): void;
  /** Writes the buffered request-log rows now (the OS is ending the session). */
  flushLog(): void;
}

/** The config, validated, and the address it and the flags ask for. */
function readConfig(opts: EngineOptions): { config: BreakwaterConfig; address: Configured } {
  let config: BreakwaterConfig;
  try {
    config = validateConfig(opts.config ?? {});
  } catch (err) {
    if (err instanceof ValidationError) throw new Error(`invalid config: ${err.message}`);
    throw err;
  }
  const gateway = config.gateway ?? {};
  const address: Configured = {
    file: { host: gateway.host ?? DEFAULT_HOST, port: gateway.port ?? DEFAULT_PORT },
    flags: { host: opts.host, port: opts.port },
  };
  return { config, address };
}

/** The data dir, the event bus, the state backend, the admin token, the store and settings. */
function openFoundation(
  opts: EngineOptions,
  config: BreakwaterConfig,
): Foundation & { adminToken: string } {
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createStderrLogger();
  prepareDataDir(opts.dataDir);
  const events = new EventBus((err) => log.error(`event listener failed: ${String(err)}`));
  const shared = openStateBackend(config.state, { env, log, emit: (e) => events.emit(e), clock });
  const adminToken = loadAdminToken(opts.dataDir, env);
  const { store, settings } = openStorage({
    dataDir: opts.dataDir,
    config,
    env,
    log,
    shared,
    ...(opts.secretCodec ? { secretCodec: opts.secretCodec } : {}),
    ...(opts.sqliteBinding ? { sqliteBinding: opts.sqliteBinding } : {}),
  });
  const maps = new BoundedMaps(() => clock.now());
  maps.startSweeping(BOUNDED_MAP_SWEEP_MS);
  return { env, clock, log, events, shared, store, settings, maps, adminToken };
}

/**
 * Builds the engine both hosts run: store, settings, catalog, proxy and admin API. Throws with
 * a clear message on an invalid config, an unusable data dir, or an unsafe bind address.
 */
export function createEngine(opts: EngineOptions): Engine {
  tuneGarbageCollection();
  const { config, address } = readConfig(opts);
  const gateway = config.gateway ?? {};
  const random = opts.random ?? Math.random;
  const { adminToken, ...base } = openFoundation(opts, config);
  const { clock, log } = base;
  const accounts = buildAccounts(base, gateway.apiKeys ?? [], configuredAddress(address).host);
  const pools = new UpstreamPools();
  const catalogs = catalogSource(base.store, base.env);
  const services = buildResilience(base, {
    catalog: catalogs.current,
    keyRing: accounts.keyRing,
    random,
  });
  const parts: EngineParts = {
    ...base,
    ...accounts,
    ...services,
    pools,
    catalog: catalogs.current,
    status: gatewayStatus(clock, log, base.events),
    listening: () => binding.info(),
  };
  const admin = buildAdmin(parts, {
    reload: () => {
      pools.retain(catalogs.reload().providers.keys());
      // A lease on a connection that was just removed would route its owner nowhere until it
      // expired: end it now, with a reason the owner is told.
      services.leases.reconcile(clock.now());
    },
    move: (input) => binding.move(input),
    pipeline: () => pipeline,
    ...(opts.localServerUrls ? { localServerUrls: opts.localServerUrls } : {}),
  });
  const snapshot = snapshotOf(parts, () => server.inFlight());
  const maxBodyBytes = gateway.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const pipeline = buildPipeline(parts, {
    maxBodyBytes,
    random,
    ...(opts.uiDir ? { uiDir: opts.uiDir } : {}),
  });
  const server = buildServer(parts, { adminToken, maxBodyBytes, snapshot, pipeline, admin });
  const binding = bindServer(parts, server, address);
  let stopped: Promise<void> | null = null;

  return {
    adminToken,
    admin: admin.service,
    actions: createAdminActions({ ...admin, snapshot }),
    listen: (port) => binding.listen(port),
    stop(stopOpts = {}) {
      stopped ??= shutDown(
        parts,
        server,
        stopOpts.graceMs ?? gateway.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      );
      return stopped;
    },
    snapshot,
    onEvent: (listener) => base.events.on(listener),
    get paused() {
      return parts.status.paused;
    },
    setPaused: (next) => parts.status.setPaused(next),
    noteHostNetwork(event) {
      log.info(`host network: ${event}`);
      services.resilience.noteHostNetwork(event, clock.now());
    },
    flushLog: () => base.store.requestLog.flush(),
  };
}
