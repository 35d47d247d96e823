// The Redis backend on a real Redis Cluster (3 primaries, 3 replicas) and on a primary with a
// replica behind three Sentinels (issue 34), two backends standing for two instances: the
// atomic steps hold, changes reach the other over (sharded) pub/sub, a resync reads every
// shard, and a killed primary costs a moment of fail-open, then sharing resumes.
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SharedChange } from '../../src/main/engine/state/backend';
import { RedisState } from '../../src/main/engine/state/redis';
import { clusterLayout, plainLayout } from '../../src/main/engine/state/redis-keys';
import { targetOf } from '../../src/main/engine/state/redis-target';
import { captureLogger } from '../support/gateway';
import {
  haRedisMissing,
  startRedisCluster,
  startRedisSentinel,
  type TestHaRedis,
} from '../support/redis';
import { until } from '../support/team';

const missing = haRedisMissing();
const PREFIX = 'ha:';
const BREAKER = {
  state: { name: 'OPEN', failures: 3, openedAt: 1_000, resetTimeoutMs: 30_000, failedProbes: 0 },
  history: [{ at: 1_000, from: 'CLOSED', to: 'OPEN', cause: '3 failures' }],
};
const cooling = (until: number) => ({
  status: 'unavailable',
  rateLimitedUntil: until,
  backoffLevel: 1,
  lastError: '429',
  lastErrorType: 'rate_limit',
  errorCode: null,
  cooldownSetAt: 500,
  refusalStreak: 0,
  authFailures: 0,
});

const forms = [
  ['Cluster', startRedisCluster],
  ['Sentinel', startRedisSentinel],
] as const;

describe.skipIf(missing !== null).each(forms)(
  `the Redis backend on %s${missing ? ` (skipped: ${missing})` : ''}`,
  (_form, start) => {
    let redis: TestHaRedis;
    let a: RedisState;
    let b: RedisState;
    const seenByB: SharedChange[] = [];
    const log = captureLogger();
    const open = () => {
      const target = targetOf(redis.config, {});
      if (!target) throw new Error('no target');
      return new RedisState({ target, keyPrefix: PREFIX, log });
    };

    beforeAll(async () => {
      redis = await start();
      a = open();
      b = open();
      b.onChange((c) => seenByB.push(c));
      await until(
        'both connected',
        () => [a, b].every((x) => x.view().status === 'connected'),
        10_000,
      );
    }, 60_000);

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await redis?.close();
    });

    it('records of every shard reach the other; a cooldown only lengthens', async () => {
      const ids = Array.from({ length: 24 }, (_, i) => `c${i}`);
      for (const id of ids)
        a.lengthen({ kind: 'health', id, value: cooling(2_000) }, 2_000, 60_000);
      await until('B hears of all', () => ids.every((id) => seenByB.some((c) => c.id === id)));
      b.lengthen({ kind: 'health', id: 'c1', value: cooling(1_000) }, 1_000, 60_000);
      await until('B gets the longer one back', () =>
        seenByB.some(
          (c) =>
            c.id === 'c1' &&
            (c.value as { rateLimitedUntil: number }).rateLimitedUntil === 2_000 &&
            seenByB.filter((x) => x.id === 'c1').length > 1,
        ),
      );
    });

    it('a new instance reads every record back from every shard (the resync)', async () => {
      for (let i = 0; i < 16; i++) a.put({ kind: 'breaker', id: `p${i}`, value: BREAKER }, null);
      await until('B heard them', () => seenByB.filter((c) => c.id.startsWith('p')).length >= 16);
      const late = open();
      const seen = new Set<string>();
      late.onChange((c) => seen.add(c.id));
      try {
        await until(
          'the late one read all',
          () => Array.from({ length: 16 }, (_, i) => `p${i}`).every((id) => seen.has(id)),
          10_000,
        );
      } finally {
        await late.close();
      }
    });

    it('one probe permit, one semaphore permit woken by a release, one lease owner, one budget', async () => {
      const token = await a.probe('pr', 10_000);
      expect(token).not.toBeNull();
      expect(await b.probe('pr', 10_000)).toBeNull();
      const signal = new AbortController().signal;
      const held = await a.permit('sem', 1, 10_000, 0, signal);
      expect(held.held).toBe(true);
      const start = Date.now();
      const waiting = b.permit('sem', 1, 10_000, 3_000, signal);
      await new Promise((r) => setTimeout(r, 30));
      held.release();
      expect((await waiting).held).toBe(true);
      // Woken by the (sharded) release message, well before the wait runs out.
      expect(Date.now() - start).toBeLessThan(1_000);
      const claim = (i: RedisState, owner: string, connection: string, previous: string | null) =>
        i.claimLease({ connection, ownerHash: owner, previous, generation: 0, ttlMs: 5_000 });
      expect(await claim(a, 'alice', 'l1', null)).toEqual({ kind: 'granted', generation: 1 });
      expect(await claim(b, 'bob', 'l1', null)).toMatchObject({ kind: 'held' });
      // A move names the previous connection's claim: one script over both, in one slot.
      expect(await claim(b, 'alice', 'l2', 'l1')).toEqual({ kind: 'granted', generation: 2 });
      expect(await claim(b, 'bob', 'l1', null)).toEqual({ kind: 'granted', generation: 1 });
      expect(
        await a.fenceLease({
          connection: 'l2',
          ownerHash: 'alice',
          generation: 1,
          action: 'renew',
          ttlMs: 1_000,
        }),
      ).toEqual({ kind: 'stale', current: 2 });
      const counters = [
        { id: 'budget:k:requests:1', max: 2, ttlMs: 5_000 },
        { id: 'budget:k:tokens:1', max: null, ttlMs: 5_000 },
        { id: 'budget:k:usd:1', max: 1, ttlMs: 5_000 },
      ];
      const answers = await Promise.all([a, b, a, b].map((i) => i.admitCounters(counters)));
      expect(answers.filter((r) => r?.admitted)).toHaveLength(2);
      a.addCounters([
        { id: 'budget:k:tokens:1', by: 7, ttlMs: 5_000 },
        { id: 'budget:k:usd:1', by: 0.25, ttlMs: 5_000 },
      ]);
      await until('B reads the added cost', async () => {
        const r = await b.admitCounters(counters);
        return r?.used[1] === 7 && r.used[2] === 0.25;
      });
    });

    it('a request queue limiter of the team works on it (Bottleneck, keys in one slot)', async () => {
      const store = a.limiterStore();
      const { default: Bottleneck } = await import('bottleneck');
      const limiter = new Bottleneck({
        id: store.id('prov/conn'),
        datastore: 'ioredis',
        connection: store.connection,
        maxConcurrent: 1,
        timeout: 60_000,
      });
      try {
        expect(await limiter.schedule(async () => 'ran')).toBe('ran');
        expect(await limiter.clusterQueued()).toBe(0);
      } finally {
        // Not disconnect(): Bottleneck does not catch the unsubscribe that sends (it would reject
        // unhandled in a later outage); the shared connection closes with the backend.
        await limiter.stop();
      }
    });

    it('hostile messages on the team channels and a record of the wrong type are dropped, not fatal', async () => {
      const client = redis.connect();
      try {
        const layout = redis.form === 'cluster' ? clusterLayout(PREFIX) : plainLayout(null, PREFIX);
        const before = b.droppedPeerRecords();
        for (const channel of layout.changeChannels.slice(0, 4))
          for (const m of [
            'null',
            '{"from":1}',
            'x'.repeat(100_000),
            '{"kind":"breaker","id":"z","v":{}}',
          ])
            await (redis.form === 'cluster'
              ? (client as Cluster).spublish(channel, m)
              : client.publish(channel, m));
        const sent = Math.min(4, layout.changeChannels.length) * 4;
        await until('B counted every drop', () => b.droppedPeerRecords() === before + sent);
        // A record key of the wrong type under a script: an answer about data, not an outage.
        const record = layout.record('health', 'wrong-type').key;
        await client.del(record);
        await client.lpush(record, 'x');
        a.lengthen({ kind: 'health', id: 'wrong-type', value: cooling(5_000) }, 5_000, 60_000);
        await until('A counted the refusal', () => a.droppedPeerRecords() > 0);
        expect([a, b].map((x) => x.view().status)).toEqual(['connected', 'connected']);
        await client.del(record);
      } finally {
        client.disconnect();
      }
    });

    it('every node stopped and started again, empty: both degrade, reconnect and refill it', async () => {
      await redis.outage.stop();
      await until(
        'both degraded',
        () => [a, b].every((x) => x.view().status === 'degraded'),
        10_000,
      );
      // Learnt while Redis is away: kept, and sent once it is back.
      a.put({ kind: 'breaker', id: 'offline', value: BREAKER }, null);
      expect(await a.probe('offline', 1_000)).toBe('local');
      await redis.outage.start();
      await until(
        'both connected again',
        () => [a, b].every((x) => x.view().status === 'connected'),
        20_000,
      );
      await until('B learns what A kept', () => seenByB.some((c) => c.id === 'offline'), 10_000);
      // A late instance reads it back from the refilled Redis.
      const late = open();
      const seen = new Set<string>();
      late.onChange((c) => seen.add(c.id));
      try {
        await until('the late one read it', () => seen.has('offline'), 10_000);
      } finally {
        await late.close();
      }
    }, 60_000);

    it('the primary killed: calls fail open meanwhile, then both are connected and sharing again', async () => {
      // On a Cluster, the primary the load's semaphore lives on, and a record on it too.
      const layout = clusterLayout(PREFIX);
      const key = layout.semaphore('load').key;
      const tag = (k: string) => /\{[^}]*\}/.exec(k)?.[0];
      let n = 0;
      while (tag(layout.record('breaker', `during-${n}`).key) !== tag(key)) n++;
      const learnt = ['during-a', 'during-b', `during-${n}`];
      const signal = new AbortController().signal;
      let failures = 0;
      let slowest = 0;
      let written = 0;
      const failing = (failures: number) => ({
        ...BREAKER,
        state: { ...BREAKER.state, failures },
      });
      let running = true;
      const statuses: string[] = [];
      a.onStatus((v) => statuses.push(v.status));
      const load = (async () => {
        while (running) {
          // None of these may throw, whatever Redis is doing.
          try {
            const t0 = Date.now();
            await a.probe('load', 100);
            (await a.permit('load', 5, 1_000, 50, signal)).release();
            await a.admitCounters([{ id: 'budget:l:requests:1', max: null, ttlMs: 5_000 }]);
            slowest = Math.max(slowest, Date.now() - t0);
            // Learnt all along, on the dead shard's group too: the latest must reach B.
            written++;
            for (const id of learnt) a.put({ kind: 'breaker', id, value: failing(written) }, null);
          } catch {
            failures++;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      try {
        await redis.killPrimary(key);
        await until(
          'both connected after the failover',
          () => [a, b].every((x) => x.view().status === 'connected'),
          20_000,
        );
      } finally {
        running = false;
        await load;
      }
      expect(failures).toBe(0);
      // Three calls on the dead primary's shard: each gives up within its timeout.
      expect(slowest).toBeLessThan(2_000);
      // The failover was felt (A fell back to its own state), and A came back.
      expect(statuses).toContain('degraded');
      expect(statuses.at(-1)).toBe('connected');
      const latest = (id: string) =>
        (seenByB.findLast((c) => c.id === id)?.value as typeof BREAKER | undefined)?.state.failures;
      await until(
        'B has the latest of what A learnt during the failover',
        () => learnt.every((id) => latest(id) === written),
        10_000,
      ).catch((err: Error) => {
        // Which value B ended on says which write went astray.
        const heard = learnt.map((id) => `${id} ${latest(id)}`).join(', ');
        throw new Error(`${err.message}: A wrote ${written} last, B ended on ${heard}`);
      });
      a.lengthen({ kind: 'health', id: 'after-failover', value: cooling(9_000) }, 9_000, 60_000);
      await until(
        'B hears the cooldown on the new primary',
        () => seenByB.some((c) => c.id === 'after-failover'),
        10_000,
      );
      // A call that meets the last of the failover (the cluster's slots still moving under a
      // loaded machine) fails open with a 'local' probe, as designed; the sharing is what counts
      // once each asks the new primary.
      let token: string | null = null;
      await until(
        'B takes a probe on the new primary',
        async () => {
          token = await b.probe('after', 5_000);
          return token !== null && token !== 'local';
        },
        10_000,
      );
      let other: string | null = 'local';
      await until(
        'A asks the new primary',
        async () => {
          other = await a.probe('after', 5_000);
          return other !== 'local';
        },
        10_000,
      );
      expect(other, `B holds ${token}`).toBeNull();
    }, 60_000);
  },
);

const PASSWORD = 'ha-pass-0123456789';
const SENTINEL_PASSWORD = 'ha-sentinel-pass-0123';
const guarded = [
  ['Cluster', () => startRedisCluster({ password: PASSWORD })],
  [
    'Sentinel',
    () => startRedisSentinel({ password: PASSWORD, sentinelPassword: SENTINEL_PASSWORD }),
  ],
] as const;

describe.skipIf(missing !== null).each(guarded)(
  `the Redis backend on %s with passwords${missing ? ` (skipped: ${missing})` : ''}`,
  (_form, start) => {
    let redis: TestHaRedis;
    beforeAll(async () => {
      redis = await start();
    }, 60_000);
    afterAll(async () => {
      await redis?.close();
    });

    it('connects with the ACL user and password, and a wrong password is an outage never logged', async () => {
      const log = captureLogger();
      const open = (r: NonNullable<TestHaRedis['config']>) =>
        new RedisState({ target: targetOf(r, {})!, keyPrefix: PREFIX, log });
      const a = open(redis.config);
      const b = open(redis.config);
      const seen: string[] = [];
      b.onChange((c) => seen.push(c.id));
      const wrong =
        redis.form === 'cluster'
          ? {
              cluster: (redis.config.cluster ?? []).map((s) =>
                s.replace(encodeURIComponent(PASSWORD), 'wrong-pass-42'),
              ),
            }
          : { ...redis.config, password: 'wrong-pass-42' };
      const refused = open(wrong);
      try {
        await until(
          'both connected',
          () => [a, b].every((x) => x.view().status === 'connected'),
          10_000,
        );
        a.put({ kind: 'breaker', id: 'guarded', value: BREAKER }, null);
        await until('B hears it', () => seen.includes('guarded'));
        await new Promise((r) => setTimeout(r, 1_000));
        expect(refused.view().status).toBe('degraded');
        expect(await refused.probe('x', 1_000)).toBe('local');
        const all = log.lines.join('\n');
        for (const secret of [PASSWORD, SENTINEL_PASSWORD, 'wrong-pass-42'])
          expect(all).not.toContain(secret);
      } finally {
        await Promise.all([a.close(), b.close(), refused.close()]);
      }
    }, 30_000);
  },
);
