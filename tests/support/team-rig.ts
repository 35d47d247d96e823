// The team-mode test rig (issue 16): the gateway keys and providers the scenarios use, one
// fake upstream per scenario, and the Redis they run on (tests/support/team-scenarios.ts).
import { Cluster, type Redis } from 'ioredis';
import { clusterLayout, plainLayout } from '../../src/main/engine/state/redis-keys';
import type { BreakwaterConfig, ProviderConfig, StateConfig } from '../../src/shared/contract';
import type { FakeUpstream } from './fake-upstream';

export const KEY = 'sk-test-team-0123456789abcdef';
export const NAMES = [
  'rl',
  'bk',
  'br',
  'mc',
  'bn',
  'ld',
  'rs',
  'ls',
  'lk',
  'lr',
  'qt',
  'rp',
  'rm',
] as const;
/** Gateway keys: a plain one for most requests, and two lease holders for `ls-1`. */
export const TEAM = 'bw-team-plain-key-0123456789';
export const ALICE = 'bw-team-alice-key-0123456789';
export const BOB = 'bw-team-bob-key-0123456789';
/** Two more lease holders, for `lr-1` (the acquire race). */
export const CAROL = 'bw-team-carol-key-0123456789';
export const DAVE = 'bw-team-dave-key-0123456789';
/** A key with a budget of 3 requests per minute, for the whole team. */
export const CAPPED = 'bw-team-capped-key-0123456789';
export const AS = (key: string) => ({ authorization: `Bearer ${key}` });
export type Name = (typeof NAMES)[number];

export function provider(id: Name, fake: FakeUpstream, extra: object = {}): ProviderConfig {
  return {
    id,
    format: 'openai',
    baseUrl: `${fake.url}/v1`,
    authClass: 'api_key',
    connections: [{ id: `${id}-1`, apiKey: KEY, ...extra }],
    models: ['m'],
  };
}

export function teamConfig(f: Record<Name, FakeUpstream>): BreakwaterConfig {
  const lease = { scopes: ['lease:exclusive'], allowedConnections: ['ls-1'] };
  const race = { scopes: ['lease:exclusive'], allowedConnections: ['lr-1'] };
  return {
    gateway: {
      apiKeys: [
        { name: 'team', key: TEAM },
        { name: 'alice', key: ALICE, ...lease },
        { name: 'bob', key: BOB, ...lease },
        { name: 'carol', key: CAROL, ...race },
        { name: 'dave', key: DAVE, ...race },
        { name: 'capped', key: CAPPED, limits: { requestsPerMinute: 3 } },
      ],
    },
    providers: [
      provider('rl', f.rl),
      provider('bk', f.bk),
      provider('br', f.br),
      provider('mc', f.mc, { maxConcurrent: 1 }),
      provider('bn', f.bn, { rateLimit: { requestsPerMinute: 3 } }),
      provider('ld', f.ld),
      provider('rs', f.rs),
      provider('ls', f.ls),
      provider('lk', f.lk),
      provider('lr', f.lr),
      provider('qt', f.qt),
      provider('rp', f.rp),
      provider('rm', f.rm),
    ],
    combos: [
      { name: 'cool', strategy: 'priority', targets: ['rl/m', 'bk/m'] },
      { name: 'resync', strategy: 'priority', targets: ['rs/m', 'bk/m'] },
    ],
    resilience: {
      'breaker.api_key.failureThreshold': 3,
      'breaker.api_key.degradationThreshold': 2,
      'breaker.api_key.resetTimeoutMs': 1_500,
      'rateLimit.maxWaitMs': 800,
      'comboCooldownWait.enabled': false,
      // These tests expect answers at once; the quota wait has its own tests.
      'quotaWait.maxWaitMs': 0,
    },
  };
}

export function lease(url: string, key: string, body: object): Promise<Response> {
  return fetch(`${url}/api/v1/session-leases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AS(key) },
    body: JSON.stringify(body),
  });
}

/** The first event of `type` on an `/api/events` stream; the stream is then closed. */
export async function eventOf(res: Response, type: string): Promise<Record<string, string>> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the event stream ended before a ${type} event`);
    buffer += decoder.decode(value, { stream: true });
    const m = new RegExp(`event: ${type.replace('.', '\\.')}\ndata: (.*)\n`).exec(buffer);
    if (m) {
      await reader.cancel();
      return JSON.parse(m[1]!) as Record<string, string>;
    }
  }
}

/** A Redis the scenarios run on. */
export interface TeamRedis {
  /** `state.redis` without `keyPrefix`. */
  state: NonNullable<StateConfig['redis']>;
  /** Hears what is announced on the team's change channels (to check it stays quiet). */
  listen(prefix: string): Promise<{ heard: string[]; close(): void }>;
  /** Stops every server and starts it again, empty (a single Redis). */
  outage?: { stop(): Promise<void>; start(): Promise<void> };
  /** Kills the primary serving `key` and waits for a replica to take over (Cluster, Sentinel). */
  failover?: (key: string) => Promise<void>;
  close(): Promise<void>;
}

/** Listens on classic or (Cluster) sharded channels, as the instances announce. */
export async function listenOn(
  client: Redis | Cluster,
  prefix: string,
): Promise<{ heard: string[]; close(): void }> {
  const heard: string[] = [];
  if (client instanceof Cluster) {
    client.on('smessage', (_c: string, m: string) => heard.push(m));
    await new Promise((r) => client.once('ready', r));
    for (const c of clusterLayout(prefix).changeChannels) await client.ssubscribe(c);
  } else {
    client.on('message', (_c: string, m: string) => heard.push(m));
    await client.subscribe(...plainLayout(null, prefix).changeChannels);
  }
  return { heard, close: () => client.disconnect() };
}
