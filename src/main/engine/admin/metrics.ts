// `GET /metrics`: the gateway in the Prometheus text format, for other tools to scrape. Behind
// the admin token or a metrics token of its own (`BREAKWATER_METRICS_TOKEN`), so a scraper
// holds no key that can change anything.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BreakerStateName, Snapshot } from '../../../shared/contract';
import type { BoundedMapStats } from '../bounded-map';
import { family, type RequestMetrics, type Sample } from '../usage/metrics';
import { checkAdminToken, checkHostAndOrigin } from '../wire/guard';
import { sendAdminError } from '../wire/json-answer';

export const METRICS_PATH = '/metrics';

export interface MetricsDeps {
  host: string;
  adminToken: string;
  /** A token that may read `/metrics` and nothing else; null when none is set. */
  metricsToken: string | null;
  snapshot(): Snapshot;
  requests: RequestMetrics;
  team: { droppedPeerRecords(): number };
  /** The bounded maps' sizes and drops. */
  maps: { stats(): BoundedMapStats[] };
}

const BREAKER_STATES: readonly BreakerStateName[] = ['CLOSED', 'DEGRADED', 'OPEN', 'HALF_OPEN'];

export function handleMetrics(req: IncomingMessage, res: ServerResponse, deps: MetricsDeps): void {
  const refusal = refusalOf(req, res, deps);
  if (refusal) {
    sendAdminError(res, refusal.status, refusal.code, refusal.message);
    return;
  }
  const body =
    deps.requests.text() +
    stateText(deps.snapshot()) +
    teamText(deps.team) +
    boundedMapsText(deps.maps.stats());
  res.writeHead(200, {
    'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function refusalOf(
  req: IncomingMessage,
  res: ServerResponse,
  deps: MetricsDeps,
): { status: number; code: string; message: string } | null {
  // The same Host and Origin check as `/api`: a web page must not read it either.
  const hostProblem = checkHostAndOrigin(req.headers, { host: deps.host });
  if (hostProblem) return { status: 403, code: 'forbidden', message: hostProblem };
  const allowed =
    checkAdminToken(req.headers, deps.adminToken) ||
    (deps.metricsToken !== null && checkAdminToken(req.headers, deps.metricsToken));
  if (!allowed) {
    res.setHeader('www-authenticate', 'Bearer realm="breakwater-metrics"');
    return {
      status: 401,
      code: 'unauthorized',
      message: '/metrics needs Authorization: Bearer <admin token or BREAKWATER_METRICS_TOKEN>',
    };
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return {
      status: 405,
      code: 'method_not_allowed',
      message: `${req.method} is not supported on /metrics`,
    };
  }
  return null;
}

function teamText(team: MetricsDeps['team']): string {
  return family(
    'breakwater_team_peer_records_dropped_total',
    'Records other team instances wrote to Redis that did not parse and were ignored.',
    'counter',
    [{ labels: {}, value: team.droppedPeerRecords() }],
  );
}

/** Size, cap and drops of each map keyed by what clients choose (sessions, prefixes, …). */
export function boundedMapsText(stats: readonly BoundedMapStats[]): string {
  return (
    family(
      'breakwater_bounded_map_entries',
      'Entries held in a bounded map (session pins, prompt prefixes, …).',
      'gauge',
      stats.map((m) => ({ labels: { map: m.name }, value: m.size })),
    ) +
    family(
      'breakwater_bounded_map_capacity',
      'The most entries a bounded map holds; the least recently used go beyond it.',
      'gauge',
      stats.map((m) => ({ labels: { map: m.name }, value: m.capacity })),
    ) +
    family(
      'breakwater_bounded_map_evictions_total',
      'Entries a bounded map dropped: reason expired (past their TTL) or capacity (least recently used, over the cap).',
      'counter',
      stats.flatMap((m) => [
        { labels: { map: m.name, reason: 'expired' }, value: m.expired },
        { labels: { map: m.name, reason: 'capacity' }, value: m.evicted },
      ]),
    )
  );
}

/** Gauges of the engine's state at scrape time: breakers, connections, queues, lockouts. */
export function stateText(s: Snapshot): string {
  const conn = (c: { provider: string; id?: string; connection?: string }) => ({
    provider: c.provider,
    connection: c.id ?? c.connection ?? '',
  });
  const breakers: Sample[] = s.breakers.flatMap((b) =>
    BREAKER_STATES.map((state) => ({
      labels: { provider: b.provider, state },
      value: b.state === state ? 1 : 0,
    })),
  );
  const lockouts = new Map<string, number>();
  for (const l of s.lockouts) lockouts.set(l.provider, (lockouts.get(l.provider) ?? 0) + 1);
  return (
    family('breakwater_up', 'Always 1 while the gateway answers.', 'gauge', [
      { labels: {}, value: 1 },
    ]) +
    family('breakwater_paused', '1 while the operator has paused the proxy.', 'gauge', [
      { labels: {}, value: s.gateway.paused ? 1 : 0 },
    ]) +
    family('breakwater_in_flight_requests', 'Proxy requests being handled.', 'gauge', [
      { labels: {}, value: s.gateway.inFlight },
    ]) +
    family(
      'breakwater_breaker_state',
      'Circuit breaker state per provider (1 for the current state).',
      'gauge',
      breakers,
    ) +
    family(
      'breakwater_connection_cooldown_seconds',
      'Seconds left in a connection cooldown (0 when not cooling).',
      'gauge',
      s.connections.map((c) => ({
        labels: conn(c),
        value: c.rateLimitedUntil ? Math.max(0, (c.rateLimitedUntil - s.at) / 1000) : 0,
      })),
    ) +
    family(
      'breakwater_connection_available',
      '1 when a connection may serve (active), 0 when cooling, terminal or disabled.',
      'gauge',
      s.connections.map((c) => ({ labels: conn(c), value: c.status === 'active' ? 1 : 0 })),
    ) +
    family(
      'breakwater_connection_in_flight',
      'Upstream attempts in flight per connection.',
      'gauge',
      s.connections.map((c) => ({ labels: conn(c), value: c.inFlight })),
    ) +
    family(
      'breakwater_queue_depth',
      'Requests waiting in a connection request queue.',
      'gauge',
      s.queues.map((q) => ({ labels: conn(q), value: q.queued })),
    ) +
    family(
      'breakwater_queue_rejected_total',
      'Requests a connection request queue refused.',
      'counter',
      s.queues.map((q) => ({ labels: conn(q), value: q.rejected })),
    ) +
    family(
      'breakwater_model_lockouts',
      'Models locked out per provider.',
      'gauge',
      [...lockouts].map(([provider, value]) => ({ labels: { provider }, value })),
    )
  );
}
