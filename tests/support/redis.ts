// A real redis-server for team-mode tests: on a free loopback port, in a temporary directory,
// without persistence. It can be stopped and started again on the same port (a Redis outage).
// Also a real Redis Cluster and a primary with a replica behind Sentinels, whose primary can be
// killed (a failover).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import {
  freePort,
  haveRedisCli,
  haveRedisServer,
  spawnRedisCluster,
  spawnRedisSentinels,
  spawnRedisServer,
} from '../../scripts/redis-server.mjs';
import type { StateConfig } from '../../src/shared/contract';

/** Why team-mode tests cannot run here (no redis-server binary), or null when they can. */
export function redisMissing(): string | null {
  return haveRedisServer()
    ? null
    : 'redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)';
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: nothing is flushed, as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the server for `ms` (SIGSTOP, then SIGCONT): a stall, every socket kept open. */
  stall(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bw-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = await spawnRedisServer(port, dir);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async stall(ms: number) {
      const c = child;
      if (!c) return;
      c.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, ms));
      c.kill('SIGCONT');
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP proxy to the Redis on `port` that holds back, by `delayMs`, every answer on a connection
 * once it has sent a SCAN (the resync's reads), and nothing else: a peer's messages on the
 * subscriber connection overtake the answers to reads sent before them.
 */
export async function slowReadsProxy(
  port: number,
  delayMs: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    let reading = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d) => {
      reading ||= /\bscan\b/i.test(d.toString('latin1'));
      upstream.write(d);
    });
    // Same delay for each, so they are sent in the order they came.
    upstream.on('data', (d) => {
      if (reading) setTimeout(() => client.write(d), delayMs);
      else client.write(d);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Why Cluster and Sentinel tests cannot run here, or null when they can. */
export function haRedisMissing(): string | null {
  return (
    redisMissing() ??
    (haveRedisCli()
      ? null
      : 'redis-cli is not installed (Debian: apt-get install redis-tools; .ci/run installs it)')
  );
}

/** A highly available Redis for team tests: what `state.redis` names, and its failover. */
export interface TestHaRedis {
  form: 'cluster' | 'sentinel';
  /** `state.redis` without `keyPrefix`. */
  config: NonNullable<StateConfig['redis']>;
  /** Kills (SIGKILL) the primary serving `key` (any one on Sentinel) and waits for a replica to take over. */
  killPrimary(key: string): Promise<void>;
  /** Stops every data node (SIGKILL) and starts them again, empty, on the same ports. */
  outage: { stop(): Promise<void>; start(): Promise<void> };
  /** A connection to it for the test itself (`subscriber`: for sharded pub/sub on a Cluster). */
  connect(subscriber?: boolean): Redis | Cluster;
  close(): Promise<void>;
}

function killAll(children: Iterable<ChildProcess>): Promise<unknown> {
  return Promise.all(
    [...children].map((c) => {
      if (c.exitCode !== null || c.signalCode !== null) return null;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      return exited;
    }),
  );
}

/**
 * A 6-node Redis Cluster (3 primaries, 3 replicas) on loopback ports in a temporary folder;
 * with `password`, required of the ACL user `default` (and given in the seed URLs); with `tls`,
 * TLS only (`rediss://` seeds).
 */
export async function startRedisCluster(
  auth: { password?: string; tls?: { cert: string; key: string } } = {},
): Promise<TestHaRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bw-redis-cluster-'));
  const c = await spawnRedisCluster(dir, 3, auth.password ?? null, auth.tls ?? null);
  const user = auth.password ? `default:${encodeURIComponent(auth.password)}@` : '';
  const scheme = auth.tls ? 'rediss' : 'redis';
  const seeds = c.ports.map((p) => `${scheme}://${user}127.0.0.1:${p}`);
  const nodes = c.ports.map((port) => ({ host: '127.0.0.1', port }));
  const redisOptions = auth.password ? { password: auth.password } : {};
  const ownerOf = (masters: number[], slot: number) =>
    masters.find((p) => {
      try {
        return ownsSlot(c.cli, p, slot);
      } catch {
        return false;
      }
    });
  return {
    form: 'cluster',
    config: { cluster: seeds },
    async killPrimary(key: string) {
      const slot = c.cli(['-p', String(c.masters()[0]), 'cluster', 'keyslot', key]).trim();
      const owner = ownerOf(c.masters(), Number(slot));
      if (owner === undefined) throw new Error(`no primary serves slot ${slot}`);
      await killAll([c.children.get(owner)!]);
      const end = Date.now() + 20_000;
      // Until the others mark it failed and its replica serves the slot.
      while (ownerOf(c.masters(), Number(slot)) === undefined || c.masters().includes(owner)) {
        if (Date.now() > end) throw new Error('no replica took over in 20 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      await c.healthy();
    },
    outage: {
      stop: () => killAll(c.children.values()).then(() => {}),
      async start() {
        await Promise.all(c.ports.map(c.start));
        await c.healthy();
      },
    },
    connect: (subscriber = false) =>
      new Cluster(nodes, { shardedSubscribers: subscriber, redisOptions }),
    async close() {
      await killAll(c.children.values());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether the primary on `port` serves `slot` (its own line of CLUSTER NODES). */
function ownsSlot(cli: (args: string[]) => string, port: number, slot: number): boolean {
  const mine = cli(['-p', String(port), 'cluster', 'nodes'])
    .split('\n')
    .find((l) => l.includes('myself'));
  if (!mine) return false;
  return mine
    .split(' ')
    .slice(8)
    .some((r) => {
      const [from, to = from] = r.split('-').map(Number);
      return slot >= from! && slot <= to!;
    });
}

/**
 * One primary, one replica and three Sentinels (master group `bwmaster`) on loopback ports;
 * `password`: the data nodes require it (ACL user `default`), `sentinelPassword`: the Sentinels.
 */
export async function startRedisSentinel(
  auth: { password?: string; sentinelPassword?: string } = {},
): Promise<TestHaRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bw-redis-sentinel-'));
  const name = 'bwmaster';
  const s = await spawnRedisSentinels(dir, name, 3, auth);
  const sentinels = s.sentinels.map((p) => `127.0.0.1:${p}`);
  const secrets = {
    ...(auth.password ? { username: 'default', password: auth.password } : {}),
    ...(auth.sentinelPassword ? { sentinelPassword: auth.sentinelPassword } : {}),
  };
  return {
    form: 'sentinel',
    config: { sentinels, name, ...secrets },
    async killPrimary() {
      const before = s.primaryNow();
      await killAll([s.children.get(before)!]);
      const end = Date.now() + 20_000;
      while (s.primaryNow() === before) {
        if (Date.now() > end) throw new Error('Sentinel did not promote the replica in 20 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    outage: {
      stop: () => killAll([s.primary, s.replica].map((p) => s.children.get(p)!)).then(() => {}),
      async start() {
        await s.startData(s.primary);
        await s.startData(s.replica);
      },
    },
    connect: () =>
      new Redis({
        sentinels: s.sentinels.map((port) => ({ host: '127.0.0.1', port })),
        name,
        ...secrets,
      }),
    async close() {
      await killAll(s.children.values());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
