// Team mode (issue 27): what other instances wrote to Redis is checked before it is used. A
// gateway process (`breakwater serve`) on a real Redis gets hostile records, read back on connect
// and published on the change channel: it keeps serving, drops what does not parse (counted in
// /metrics) and bounds what does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { killCliRuns } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { redisMissing, startRedis, type TestRedis } from '../support/redis';
import { chat, startInstance, type TeamInstance, until } from '../support/team';

const missing = redisMissing();
const PREFIX = 'bwpeer:';
const KEY = 'sk-test-peer-0123456789abcdef';
const GATEWAY_KEY = 'bw-peer-plain-key-0123456789';
const WEEK = 7 * 86_400_000;

function config(fake: FakeUpstream): BreakwaterConfig {
  const provider = (id: string) => ({
    id,
    format: 'openai' as const,
    baseUrl: `${fake.url}/v1`,
    authClass: 'api_key' as const,
    connections: [{ id: `${id}-1`, apiKey: KEY }],
    models: ['m'],
  });
  return {
    gateway: { apiKeys: [{ name: 'team', key: GATEWAY_KEY }] },
    providers: [provider('pa'), provider('pb'), provider('pc')],
  };
}

/** A connection health record, valid but for what `over` changes. */
function health(over: object): object {
  return {
    status: 'unavailable',
    rateLimitedUntil: Date.now() + 60_000,
    backoffLevel: 1,
    lastError: '429',
    lastErrorType: 'rate_limit',
    errorCode: null,
    cooldownSetAt: Date.now(),
    refusalStreak: 0,
    authFailures: 0,
    ...over,
  };
}

function message(kind: string, id: string, v: unknown): string {
  return JSON.stringify({ from: 'hostile', kind, id, v });
}

const BREAKER_WITHOUT_HISTORY = {
  state: { name: 'OPEN', failures: 3, openedAt: 1, resetTimeoutMs: 30_000, failedProbes: 0 },
};
const LEASE_WITHOUT_STATUS = {
  id: 7,
  ownerHash: 'ab12',
  keyName: 'team',
  connection: 'pa-1',
  generation: 1,
  acquiredAt: 1,
  expiresAt: 9e15,
};

describe.skipIf(missing !== null)(
  `team mode: peer data${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestRedis;
    let client: Redis;
    let root: string;
    let fake: FakeUpstream;
    let a: TeamInstance;

    const dropped = async () => {
      const text = await (await a.admin('/metrics')).text();
      return Number(/^breakwater_team_peer_records_dropped_total (\d+)$/m.exec(text)?.[1]);
    };
    const alive = () => a.run.child.exitCode === null && a.run.child.signalCode === null;

    beforeAll(async () => {
      redis = await startRedis();
      client = new Redis(redis.url);
      root = mkdtempSync(join(tmpdir(), 'bw-peer-'));
      fake = await startFakeUpstream({ models: ['m'] });
      // Records another instance left, read back when this one connects.
      const seed: Array<[string, string]> = [
        ['breaker:pa', message('breaker', 'pa', BREAKER_WITHOUT_HISTORY)],
        ['lease:ab12:1', message('lease', 'ab12:1', LEASE_WITHOUT_STATUS)],
        ['health:pa-1', message('health', 'pa-1', health({ rateLimitedUntil: 9e15 }))],
        ['health:pc-1', 'not json {'],
      ];
      for (const [k, v] of seed) await client.hset(`${PREFIX}rec:${k}`, 'v', v);
      a = await startInstance('a', root, config(fake), { url: redis.url, keyPrefix: PREFIX });
      await until('connected', async () => (await a.team())?.status === 'connected', 10_000);
    }, 60_000);

    afterAll(async () => {
      await a?.stop();
      killCliRuns();
      client?.disconnect();
      await fake?.close();
      await redis?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('records read back on connect: the broken ones dropped, a far cooldown clamped', async () => {
      expect(alive()).toBe(true);
      const s = await a.state();
      const pa = s.connections.find((c) => c.id === 'pa-1')!;
      expect(pa.status).toBe('unavailable');
      expect(pa.rateLimitedUntil).toBeLessThanOrEqual(Date.now() + WEEK);
      expect(s.breakers.find((b) => b.provider === 'pa')?.state).toBe('CLOSED');
      expect(s.leases).toEqual([]);
      expect(s.connections.find((c) => c.id === 'pc-1')?.status).toBe('active');
      expect(await dropped()).toBe(3);
    });

    it('hostile change messages crash nothing and are not adopted', async () => {
      const channel = `${PREFIX}changes`;
      const hostile = [
        'null',
        '{}',
        '[1,2]',
        '"text"',
        '{"from":"x","kind":"breaker","id":"pb","v":{"state":{"name":"OPEN"}}}',
        message('breaker', 'pb', BREAKER_WITHOUT_HISTORY),
        message('lease', 'ab12:2', { ...LEASE_WITHOUT_STATUS, generation: 2 }),
        message('health', 'pb-1', health({ status: 'gone-fishing' })),
        message('health', 'pb-1', { status: 'banned' }),
        message('lockout', 'pb:pb-1:m', { key: 'pb:pb-1:m', expiresAt: 'soon' }),
        message('pin', 's1', { connection: { toString: 1 } }),
        message('quota', 'pb-1', { learnedAt: 'yesterday' }),
        `{"from":"x","kind":"health","id":"pb-1","v":${'['.repeat(5_000)}`,
      ];
      for (const m of hostile) await client.publish(channel, m);
      // A valid record with a cooldown that would never end: adopted, but bounded.
      await client.publish(channel, message('health', 'pc-1', health({ rateLimitedUntil: 9e15 })));
      await until('the last one adopted', async () => {
        const c = (await a.state()).connections.find((x) => x.id === 'pc-1');
        return c?.status === 'unavailable';
      });
      expect(alive()).toBe(true);
      const s = await a.state();
      expect(s.connections.find((c) => c.id === 'pc-1')!.rateLimitedUntil).toBeLessThanOrEqual(
        Date.now() + WEEK,
      );
      expect(s.connections.find((c) => c.id === 'pb-1')?.status).toBe('active');
      expect(s.breakers.find((b) => b.provider === 'pb')?.state).toBe('CLOSED');
      expect(s.leases).toEqual([]);
      expect(await dropped()).toBe(3 + hostile.length);
      const res = await chat(a.url, 'pb/m', { authorization: `Bearer ${GATEWAY_KEY}` });
      expect(res.status).toBe(200);
      // One warning a minute (the first one, on connect), naming fields, never the values.
      const log = a.run.stdout() + a.run.stderr();
      expect(log.split('\n').filter((l) => l.includes('did not parse'))).toHaveLength(1);
      expect(log).not.toContain('gone-fishing');
    });
  },
);
