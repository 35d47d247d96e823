// `npm run bench`'s team-mode rows (issue 16): Breakwater with its resilience state on Redis, next
// to the same build on local state. Two team systems: `team` (Redis backend, nothing contended on
// the request path) and `team-sem` (every connection has a shared `maxConcurrent`, so each request
// takes and gives back a Redis semaphore permit: two Lua scripts per request, the worst case).
// With redis-cli installed, `cluster-sem` is team-sem on a 6-node Redis Cluster (issue 34).
import { join } from 'node:path';
import {
  freePort,
  haveRedisCli,
  haveRedisServer,
  spawnRedisCluster,
  spawnRedisServer,
} from '../scripts/redis-server.mjs';

export const TEAM_LABELS = ['team', 'team-sem', 'cluster-sem'];

/** True when Debian's redis-server is installed (otherwise the team rows are left out). */
export const haveRedis = haveRedisServer;

/** A throwaway redis-server (and Cluster, when it can) on loopback; `stop()` ends them. */
export async function startBenchRedis(dir) {
  const port = await freePort();
  const child = await spawnRedisServer(port, dir);
  const cluster = haveRedisCli() ? await spawnRedisCluster(join(dir, 'cluster')) : null;
  return {
    url: `redis://127.0.0.1:${port}`,
    cluster: cluster?.ports.map((p) => `redis://127.0.0.1:${p}`) ?? null,
    stop: () => {
      child.kill('SIGKILL');
      for (const c of cluster?.children.values() ?? []) c.kill('SIGKILL');
    },
  };
}

/**
 * The bench config of a team system on `redis`; with a semaphore (team-sem, cluster-sem), a
 * shared `maxConcurrent` on every connection. Null when the system cannot run here.
 */
export function teamConfig(config, redis, label) {
  if (label === 'cluster-sem' && !redis.cluster) return null;
  const semaphore = label !== 'team';
  const at = label === 'cluster-sem' ? { cluster: redis.cluster } : { url: redis.url };
  return {
    ...config,
    state: { backend: 'redis', redis: { ...at, keyPrefix: semaphore ? 'bench-sem:' : 'bench:' } },
    providers: config.providers.map((p) => ({
      ...p,
      connections: p.connections.map((c) => (semaphore ? { ...c, maxConcurrent: 1000 } : c)),
    })),
  };
}

/** Team rows: added latency at c=1 and the throughput ratio, each against local state. */
export function teamReport(r, table) {
  const f = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const rows = [
    [
      'measure',
      'local',
      'team',
      'team-sem',
      'cluster-sem',
      'team − local',
      'team-sem − local',
      'cluster-sem − local',
    ],
  ];
  const add = (name, get, d, diff) => {
    const [l, t, s, c] = ['breakwater', ...TEAM_LABELS].map((k) => get(k));
    rows.push([name, f(l, d), f(t, d), f(s, d), f(c, d), diff(t, l), diff(s, l), diff(c, l)]);
  };
  const minus = (a, b) => `${a - b >= 0 ? '+' : ''}${f(a - b, 3)} ms`;
  const ratio = (a, b) => `${f(a / b, 3)}×`;
  if (r.latency) {
    add('c=1 latency p50 (ms)', (k) => r.latency[k]?.p50, 3, minus);
    add('c=1 latency p99 (ms)', (k) => r.latency[k]?.p99, 3, minus);
  }
  if (r.throughput) {
    add('c=64 non-streaming req/s', (k) => r.throughput[k]?.rps, 0, ratio);
    add('c=64 CPU µs/req (proxy)', (k) => r.throughput[k]?.cpuUsPerReq, 1, ratio);
  }
  return `\nTeam mode (state on Redis) against local state\n${table(rows)}\n`;
}
