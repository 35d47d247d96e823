import { join } from 'node:path';
import type { AdminActions } from '../../shared/admin-client';
import type { BreakwaterConfig, EngineEvent, Snapshot } from '../../shared/contract';
import { createAdminActions } from './admin/actions';
import { connectionStateView } from './admin/connection-state';
import { createAdminHandler } from './admin/http';
import type { KeyOperations } from './admin/keys';
import { handleMetrics, METRICS_PATH } from './admin/metrics';
import type { AdminOperations } from './admin/operations';
import { AdminService } from './admin/service';
import { loadAdminToken } from './admin/token';
import { type Clock, systemClock } from './clock';
import { Catalog } from './config/catalog';
import { ValidationError, validateConfig } from './config/validate';
import { prepareDataDir, restrictToOwner } from './data-dir';
import { EventBus } from './events';
import { createStderrLogger, type Logger } from './logger';
import {
  bindRefusal,
  type Configured,
  configuredAddress,
  createBinding,
  type ListenInfo,
  SAVED_ADDRESS,
  startAddress,
} from './proxy/binding';
import { handleProxyRequest, type PipelineDeps } from './proxy/pipeline/index';
import { pipelineSettings, shapeSettings } from './proxy/pipeline/settings';
import { createGatewayServer, type GatewayServer } from './proxy/server';
import { handleSessionLeases } from './proxy/session-leases';
import { FlowControl } from './resilience/flow';
import type { HostNetworkEvent } from './resilience/health';
import { leaseService, teamLeaseRepo } from './resilience/leases';
import { ResilienceManager } from './resilience/manager';
import { ShapeRepairs } from './resilience/shape';
import { SubscriptionService } from './resilience/subscription';
import { FairShare } from './routing/fair-share';
import { loadModelDefaults } from './routing/model-defaults';
import { QuotaBook } from './routing/quota-book';
import { RoutingSignals } from './routing/signals';
import { Settings } from './settings/settings';
import { openStateBackend } from './state';
import { openStore, type SecretCodec, type Store } from './store';
import { applyConfig } from './store/apply-config';
import { setSqliteBinding } from './store/database';
import { createUiHandler } from './ui/static';
import { UpstreamPools } from './upstream/pools';
import { KeyRing } from './usage/key-ring';
import { UsageService } from './usage/service';
import { VERSION } from './version';

export const DEFAULT_PORT = 4141;
export const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

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

/**
 * Builds the engine both hosts run: store, settings, catalog, proxy and admin API. Throws with
 * a clear message on an invalid config, an unusable data dir, or an unsafe bind address.
 */
export function createEngine(opts: EngineOptions): Engine {
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createStderrLogger();
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
  const apiKeys = gateway.apiKeys ?? [];

  prepareDataDir(opts.dataDir);
  const events = new EventBus((err) => log.error(`event listener failed: ${String(err)}`));
  const shared = openStateBackend(config.state, { env, log, emit: (e) => events.emit(e), clock });
  const adminToken = loadAdminToken(opts.dataDir, env);
  // The request log prunes lazily, after settings exist; until then the default applies.
  let retentionDays = (): number => 30;
  const dbFile = join(opts.dataDir, 'breakwater.db');
  if (opts.sqliteBinding) setSqliteBinding(opts.sqliteBinding);
  const store: Store = openStore(dbFile, {
    connections: {
      ...(opts.secretCodec ? { secretCodec: opts.secretCodec } : {}),
      onSecretError: (connection, err) =>
        log.error(
          opts.secretCodec
            ? `connection ${connection}: its stored key cannot be decrypted on this machine (${(err as Error).message}); enter the key again`
            : // Only the desktop app seals keys (OS keychain); this host has no way to open them.
              `connection ${connection}: its key was sealed with the OS keychain by the Breakwater desktop app, which this host cannot open; run the desktop app, or give the key as apiKeyEnv (or enter it again here)`,
        ),
    },
    requestLog: {
      onError: (err) => log.error(`request log: ${String(err)}`),
      retentionDays: () => retentionDays(),
    },
  });
  let settings: Settings;
  try {
    // Literal provider keys live in this file; SQLite gives its -wal/-shm files the same mode.
    restrictToOwner(dbFile);
    settings = new Settings(store.settings, env, log);
    retentionDays = () => settings.number('requestLog.retentionDays');
    try {
      applyConfig(config, store, settings, log);
    } catch (err) {
      throw new Error(`invalid config: ${(err as Error).message}`);
    }
  } catch (err) {
    store.close();
    void shared.close();
    throw err;
  }
  // Gateway keys live in the store; the config file's are imported (by name) at every start.
  const keyRing = new KeyRing(store.gatewayKeys, () => clock.now());
  keyRing.importConfig(apiKeys);
  const refusal = bindRefusal(configuredAddress(address).host, keyRing.size);
  if (refusal) {
    store.close();
    throw new Error(refusal);
  }
  const usage = new UsageService({
    repo: store.usage,
    keys: keyRing,
    now: () => clock.now(),
    emit: (e) => events.emit(e),
    retentionDays: () => settings.number('usage.retentionDays'),
    onError: (err) => log.error(`usage roll-up: ${String(err)}`),
    shared,
  });
  const accounts: KeyOperations = { keys: keyRing, usage, now: () => clock.now() };
  const quotas = new QuotaBook(store.quotas, (err) => log.error(`quotas: ${String(err)}`), shared);

  const pools = new UpstreamPools();
  const modelDefaults = loadModelDefaults();
  const loadCatalog = () =>
    new Catalog(
      store.providers.list().map((p) => ({
        ...p,
        connections: store.connections.list(p.id),
      })),
      store.combos.list(),
      env,
      modelDefaults,
    );
  let catalog = loadCatalog();
  const reload = () => {
    catalog = loadCatalog();
    pools.retain(catalog.providers.keys());
    // A lease on a connection that was just removed would route its owner nowhere until it
    // expired: end it now, with a reason the owner is told.
    leases.reconcile(clock.now());
  };
  const resilience = new ResilienceManager({
    shared,
    settings,
    catalog: () => catalog,
    repo: store.resilience,
    emit: (e) => events.emit(e),
    log,
    now: () => clock.now(),
    recentEgress: (connection, since) => store.requestLog.recentEgress(connection, since),
  });
  // Anthropic subscription accounts (§2); lane state survives restarts.
  const subscription = new SubscriptionService({
    repo: store.subscription,
    log,
    now: () => clock.now(),
    random: opts.random ?? Math.random,
    apiBase: () => settings.string('subscription.anthropicApiBase'),
  });
  // Request-shape fixes learnt from providers' 400s (issue 17); they survive restarts.
  const shapeRepairs = new ShapeRepairs({
    repo: store.learnedFixes,
    emit: (e) => events.emit(e),
    log,
    now: () => clock.now(),
  });
  const flow = new FlowControl({
    shared,
    settings,
    pins: store.sessionPins,
    log,
    now: () => clock.now(),
  });
  // Exclusive session leases (§10); ACTIVE ones survive restarts, revoked keys end theirs.
  const leases = leaseService(shared, {
    repo: teamLeaseRepo(store.leases, shared, clock, (l) => leases.adopt(l, clock.now())),
    emit: (e) => events.emit(e),
    log,
    keyNamed: (name) => keyRing.liveByName(name),
    catalog: () => catalog,
    exclusion: (c, now) => resilience.exclusion(c, now),
    connectionEligible: (c, now) => resilience.leasable(c, catalog.providers.get(c.provider), now),
  });
  leases.reconcile(clock.now());
  keyRing.onChange(() => leases.reconcile(clock.now()));
  const startedAt = clock.now();
  const uptime = () => clock.now() - startedAt;
  const inFlightByConnection = new Map<string, number>();
  let requestsTotal = 0;
  let errorsTotal = 0;
  // Operator pause: the proxy answers 503 in the client's format; admin API and /ui keep working.
  let paused = false;
  const setPaused = (next: boolean): void => {
    if (next === paused) return;
    paused = next;
    log.info(paused ? 'paused: proxy requests get 503 until resumed' : 'resumed');
    events.emit({ type: paused ? 'gateway.paused' : 'gateway.resumed', at: clock.now() });
  };

  const admin = new AdminService(
    store,
    settings,
    () => catalog,
    reload,
    (e) => events.emit(e),
    () => clock.now(),
    resilience,
  );
  const adminOps: AdminOperations = {
    service: admin,
    setPaused: (next) => {
      setPaused(next);
      return { paused };
    },
    setAddress: (input) => binding.move(input),
    releaseLease: (connection) => leases.releaseConnection(connection, clock.now()),
    learnedFixes: shapeRepairs,
    log,
    env,
    listening: () => binding.info(),
    ...(opts.localServerUrls ? { localServerUrls: opts.localServerUrls } : {}),
  };

  const snapshot = (now = clock.now()): Snapshot => ({
    at: now,
    gateway: {
      version: VERSION,
      ...binding.info(),
      startedAt,
      paused,
      activeCombo: settings.string('routing.activeCombo') || null,
      requestsTotal,
      errorsTotal,
      inFlight: server.inFlight(),
    },
    breakers: resilience.breakerViews(now),
    connections: [...catalog.connections.values()].map((c) =>
      connectionStateView(
        c,
        resilience.connectionHealth(c, now),
        subscription.lane(c, now),
        inFlightByConnection.get(c.id) ?? 0,
      ),
    ),
    lockouts: resilience.lockoutViews(now),
    queues: flow.queueViews(),
    leases: leases.views(now),
    sessions: flow.sessions(now),
    learnedFixes: shapeRepairs.list(),
    quotas: quotas.views(catalog.connections),
    team: shared.view(),
  });

  // Built once: the request path only reads it. Settings it needs are derived values,
  // recomputed after a settings update rather than on every request.
  const maxBodyBytes = gateway.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const pipeline: PipelineDeps = {
    // Read per request: the dashboard may move the gateway to another host.
    get host() {
      return binding.info().host;
    },
    keys: keyRing,
    priceOf: (provider, model) => catalog.modelSpec(provider, model).price ?? null,
    budgets: usage,
    maxBodyBytes,
    startedAt,
    paused: () => paused,
    ...(opts.uiDir ? { ui: createUiHandler(opts.uiDir) } : {}),
    ...pipelineSettings(settings),
    shape: { repairs: shapeRepairs, ...shapeSettings(settings) },
    catalog: () => catalog,
    pools,
    clock,
    log,
    inFlight: inFlightByConnection,
    routing: new RoutingSignals(opts.random ?? Math.random, quotas),
    share: new FairShare(
      () => clock.now(),
      settings.derived((s) => s.number('concurrencyLimit.waitTimeoutMs')),
    ),
    resilience,
    flow,
    subscription,
    events: ({ code, candidate, message }) =>
      events.emit({
        type: 'queue.rejected',
        at: clock.now(),
        provider: candidate.target.provider.id,
        connection: candidate.connection.id,
        code,
        cause: message,
      }),
    record: (entry, sample) => {
      usage.record(entry, sample);
      requestsTotal++;
      if (entry.status >= 400) errorsTotal++;
      const id = store.requestLog.append(entry);
      // Nobody listening (no dashboard open) is the common case: skip building the event.
      if (events.size > 0) {
        events.emit({ type: 'request.completed', at: clock.now(), entry: { ...entry, id } });
      }
    },
    leases,
  };

  const server: GatewayServer = createGatewayServer({
    get host() {
      return binding.info().host;
    },
    matchKey: (presented) => keyRing.match(presented),
    log,
    sessionLeases: (req, res, key) =>
      handleSessionLeases(req, res, key, {
        leases,
        clock,
        maxBodyBytes,
        keysConfigured: () => keyRing.size > 0,
      }),
    // Not an async function: the pipeline's own promise is passed on without another layer.
    proxy: (req, res, url) =>
      url.pathname === METRICS_PATH
        ? Promise.resolve(
            handleMetrics(req, res, {
              host: binding.info().host,
              adminToken,
              metricsToken: env.BREAKWATER_METRICS_TOKEN || null,
              snapshot,
              requests: usage.metrics,
              team: shared,
            }),
          )
        : handleProxyRequest(req, res, url, pipeline),
    admin: createAdminHandler({
      ...adminOps,
      token: adminToken,
      maxBodyBytes,
      snapshot,
      health: () => ({ status: 'ok', version: VERSION, uptimeMs: uptime(), team: shared.view() }),
      onEvent: (l) => events.on(l),
      accounts,
    }),
  });

  const binding = createBinding({
    server,
    file: address.file,
    start: startAddress(address, store.settings.get(SAVED_ADDRESS), keyRing.size, log),
    settings: store.settings,
    liveKeys: () => keyRing.size,
    log,
    onMoved: (info, from) => events.emit({ type: 'gateway.moved', at: clock.now(), ...info, from }),
  });
  let stopped: Promise<void> | null = null;

  return {
    adminToken,
    admin,
    actions: createAdminActions({ ...adminOps, accounts, snapshot }),
    listen: (port) => binding.listen(port),
    stop(stopOpts = {}) {
      stopped ??= (async () => {
        const grace = stopOpts.graceMs ?? gateway.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        if (server.server.listening) await server.close(grace);
        await pools.close();
        resilience.close();
        await flow.close();
        subscription.close();
        shapeRepairs.close();
        usage.close();
        quotas.flush();
        store.close();
        await shared.close();
      })();
      return stopped;
    },
    snapshot,
    onEvent: (listener) => events.on(listener),
    get paused() {
      return paused;
    },
    setPaused,
    noteHostNetwork(event) {
      log.info(`host network: ${event}`);
      resilience.noteHostNetwork(event, clock.now());
    },
    flushLog: () => store.requestLog.flush(),
  };
}
