import type { Snapshot } from '../../../shared/contract';
import { createAdminHandler } from '../admin/http';
import { handleMetrics, METRICS_PATH } from '../admin/metrics';
import {
  type Binding,
  type Configured,
  createBinding,
  SAVED_ADDRESS,
  startAddress,
} from '../proxy/binding';
import { handleProxyRequest, type PipelineDeps } from '../proxy/pipeline/index';
import { createGatewayServer, type GatewayServer } from '../proxy/server';
import { handleSessionLeases } from '../proxy/session-leases';
import { VERSION } from '../version';
import type { AdminParts } from './admin';
import type { EngineParts } from './parts';

export interface ServerInputs {
  adminToken: string;
  maxBodyBytes: number;
  snapshot(): Snapshot;
  pipeline: PipelineDeps;
  admin: AdminParts;
}

/** The HTTP server: `/metrics`, session leases and the proxy, and the admin API under `/api`. */
export function buildServer(parts: EngineParts, inputs: ServerInputs): GatewayServer {
  const { clock, env, events, keyRing, log, shared, status } = parts;
  const { adminToken, maxBodyBytes, snapshot } = inputs;
  return createGatewayServer({
    get host() {
      return parts.listening().host;
    },
    matchKey: (presented) => keyRing.match(presented),
    log,
    sessionLeases: (req, res, key) =>
      handleSessionLeases(req, res, key, {
        leases: parts.leases,
        clock,
        maxBodyBytes,
        keysConfigured: () => keyRing.size > 0,
      }),
    // Not an async function: the pipeline's own promise is passed on without another layer.
    proxy: (req, res, url) =>
      url.pathname === METRICS_PATH
        ? Promise.resolve(
            handleMetrics(req, res, {
              host: parts.listening().host,
              adminToken,
              metricsToken: env.BREAKWATER_METRICS_TOKEN || null,
              snapshot,
              requests: parts.usage.metrics,
              team: parts.shared,
              maps: parts.maps,
            }),
          )
        : handleProxyRequest(req, res, url, inputs.pipeline),
    admin: createAdminHandler({
      ...inputs.admin,
      token: adminToken,
      maxBodyBytes,
      snapshot,
      health: () => ({
        status: 'ok',
        version: VERSION,
        uptimeMs: clock.now() - status.startedAt,
        team: shared.view(),
      }),
      onEvent: (l) => events.on(l),
    }),
  });
}

/** Where the server listens, and its moves: `startAddress` picks the first address. */
export function bindServer(
  parts: EngineParts,
  server: GatewayServer,
  address: Configured,
): Binding {
  const { clock, events, keyRing, log, store } = parts;
  return createBinding({
    server,
    file: address.file,
    start: startAddress(address, store.settings.get(SAVED_ADDRESS), keyRing.size, log),
    settings: store.settings,
    liveKeys: () => keyRing.size,
    log,
    onMoved: (info, from) => events.emit({ type: 'gateway.moved', at: clock.now(), ...info, from }),
  });
}
