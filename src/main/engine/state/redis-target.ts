// Where team mode's Redis is (issue 34): one server by URL, a Redis Cluster by seed nodes, or a
// primary with replicas behind Sentinel. Each form opens the same kind of client for the
// backend's uses (commands, subscriber, request queues), with the fail-at-once options.

import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import type { StateConfig } from '../../../shared/contract';
import { clusterSeedsFromEnv, sentinelAddress } from '../../../shared/schema/redis-nodes';
import type { ValidationError } from '../../../shared/validation-error';
import { ioredis } from '../lazy-module';

export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; seeds: string[] }
  | {
      kind: 'sentinel';
      sentinels: string[];
      name: string;
      sentinelPassword?: string;
      username?: string;
      password?: string;
    };

/** A client of any form: the commands the backend sends exist on both. */
export type AnyRedis = Redis | Cluster;

/**
 * The target the environment and the config name, or null when neither names one. The
 * environment wins over the file (a deployment's secret stays out of the config).
 */
export function targetOf(redis: StateConfig['redis'], env: NodeJS.ProcessEnv): RedisTarget | null {
  const envUrl = env.BREAKWATER_REDIS_URL || undefined;
  const envCluster = env.BREAKWATER_REDIS_CLUSTER || undefined;
  if (envUrl && envCluster)
    throw new Error(
      'invalid environment: set BREAKWATER_REDIS_URL or BREAKWATER_REDIS_CLUSTER, not both',
    );
  if (envUrl) {
    if (!/^rediss?:\/\//.test(envUrl))
      throw new Error('BREAKWATER_REDIS_URL must start with redis:// or rediss://');
    return { kind: 'single', url: envUrl };
  }
  if (envCluster) {
    try {
      return { kind: 'cluster', seeds: clusterSeedsFromEnv(envCluster) };
    } catch (err) {
      throw new Error(`invalid environment: ${(err as ValidationError).message}`);
    }
  }
  if (redis?.url) return { kind: 'single', url: redis.url };
  if (redis?.cluster) return { kind: 'cluster', seeds: redis.cluster };
  if (redis?.sentinels && redis.name) {
    const { sentinels, name, sentinelPassword, username, password } = redis;
    return { kind: 'sentinel', sentinels, name, sentinelPassword, username, password };
  }
  return null;
}

/** What the log says about the target: addresses only, never credentials. */
export function describeTarget(t: RedisTarget): string {
  if (t.kind === 'single') return redactUrl(t.url);
  if (t.kind === 'cluster') return `Cluster, seeds ${t.seeds.map(redactUrl).join(', ')}`;
  return `Sentinel, master group ${t.name} via ${t.sentinels.join(', ')}`;
}

/** The URL without its credentials, for the log. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'redis';
  }
}

/** The options every connection takes, whatever the form (timeouts, retries, queueing). */
export interface ConnectOptions {
  enableOfflineQueue: boolean;
  maxRetriesPerRequest: number | null;
  commandTimeout?: number;
  connectTimeout: number;
  retryStrategy: (attempt: number) => number | null;
  /** The owner closed the connection on purpose: it stays closed. */
  closed(): boolean;
}

/** A replica answering after a failover (the old primary, demoted): ask where the primary is. */
const reconnectOnError = (err: Error) => /^READONLY\b/.test(err.message);

function seedNode(seed: string) {
  const u = new URL(seed);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
}

function clusterOptions(seeds: string[], o: ConnectOptions, subscriber: boolean): ClusterOptions {
  const first = new URL(seeds[0]!);
  const nodeOptions: RedisOptions = {
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
    connectTimeout: o.connectTimeout,
    ...(o.commandTimeout !== undefined ? { commandTimeout: o.commandTimeout } : {}),
  };
  return {
    redisOptions: nodeOptions,
    enableOfflineQueue: o.enableOfflineQueue,
    maxRedirections: 16,
    // A slot whose primary just died: ask again shortly (the replica takes over in seconds),
    // but a command of the request path still fails within its timeout.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    clusterRetryStrategy: o.retryStrategy,
    // Learn a promoted replica soon even when no command was refused meanwhile.
    slotsRefreshInterval: 1_000,
    // Sharded pub/sub (Redis 7): each channel is served by the shard that owns its slot.
    shardedSubscribers: subscriber,
  };
}

/** Opens one connection to the target. */
export function openClient(t: RedisTarget, o: ConnectOptions, subscriber = false): AnyRedis {
  if (t.kind === 'cluster')
    return new (ioredis().Cluster)(t.seeds.map(seedNode), clusterOptions(t.seeds, o, subscriber));
  const { Redis } = ioredis();
  if (t.kind === 'single') return new Redis(t.url, redisOptions(o));
  const client = new Redis({
    ...redisOptions(o),
    reconnectOnError,
    sentinels: t.sentinels.map((s, i) => sentinelAddress(s, `sentinels[${i}]`)),
    name: t.name,
    ...(t.sentinelPassword ? { sentinelPassword: t.sentinelPassword } : {}),
    ...(t.username ? { username: t.username } : {}),
    ...(t.password ? { password: t.password } : {}),
    // Sentinel announces a switch of primary: move at once rather than at the next error.
    failoverDetector: true,
    sentinelRetryStrategy: o.retryStrategy,
  });
  connectAgainWhenEnded(client, o);
  return client;
}

/** What ioredis takes of the options (`closed` is ours). */
function redisOptions(o: ConnectOptions): RedisOptions {
  const { closed: _, ...rest } = o;
  return rest;
}

/**
 * ioredis gives a Sentinel connection up for good (status `end`, no more retries) when the
 * failover detector of an earlier connection hears `+switch-master` while a reconnect is asking
 * a Sentinel where the primary is: the detector stops the connector, whose connect then throws.
 * The failover test hit it about one run in four with other team tests alongside, and the
 * instance then served on local state until it was restarted. Ended without being closed, the
 * connection is opened again, after the retry strategy's delay.
 */
function connectAgainWhenEnded(client: Redis, o: ConnectOptions): void {
  let ends = 0;
  client.on('ready', () => {
    ends = 0;
  });
  client.on('end', () => {
    if (o.closed()) return;
    const delay = o.retryStrategy(++ends);
    if (delay === null) return;
    setTimeout(() => {
      if (!o.closed() && client.status === 'end') client.connect().catch(() => {});
    }, delay).unref();
  });
}
