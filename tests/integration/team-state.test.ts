// The Redis backend's atomic steps on a real Redis, two backends standing for two instances.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/main/engine/config/validate';
import type { SharedChange } from '../../src/main/engine/state/backend';
import { openStateBackend, redactUrl } from '../../src/main/engine/state/index';
import { RedisState, reconnectDelayMs } from '../../src/main/engine/state/redis';
import { plainLayout } from '../../src/main/engine/state/redis-keys';
import { captureLogger } from '../support/gateway';
import { redisMissing, slowReadsProxy, startRedis, type TestRedis } from '../support/redis';
import { until } from '../support/team';

const missing = redisMissing();

/** A connection's health record cooling until `until`, as an instance sends it. */
function cooling(until: number) {
  return {
    status: 'unavailable',
    rateLimitedUntil: until,
    backoffLevel: 1,
    lastError: '429',
    lastErrorType: 'rate_limit',
    errorCode: null,
    cooldownSetAt: 500,
    refusalStreak: 0,
    authFailures: 0,
  };
}

const OPEN_BREAKER = {
  state: { name: 'OPEN', failures: 3, openedAt: 1_000, resetTimeoutMs: 30_000, failedProbes: 0 },
  history: [{ at: 1_000, from: 'CLOSED', to: 'OPEN', cause: '3 failures' }],
};

describe('choosing the backend', () => {
  const deps = { log: captureLogger(), emit() {}, clock: { now: () => 0 } };

  it('is local unless the config or BREAKWATER_REDIS_URL asks for Redis', async () => {
    expect(openStateBackend(undefined, { ...deps, env: {} }).kind).toBe('local');
    expect(openStateBackend({ backend: 'local' }, { ...deps, env: {} }).view()).toEqual({
      backend: 'local',
      status: 'connected',
    });
    expect(() => openStateBackend({ backend: 'redis' }, { ...deps, env: {} })).toThrow(
      /state.redis.url.*BREAKWATER_REDIS_URL/,
    );
    const r = openStateBackend(undefined, {
      ...deps,
      env: { BREAKWATER_REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(r.kind).toBe('redis');
    await r.close();
  });

  it('the config names the backend, a redis:// URL and a plain key prefix', () => {
    expect(
      validateConfig({
        state: { backend: 'redis', redis: { url: 'redis://h:6379', keyPrefix: 'team:' } },
      }).state,
    ).toEqual({ backend: 'redis', redis: { url: 'redis://h:6379', keyPrefix: 'team:' } });
    expect(() => validateConfig({ state: { backend: 'memcached' } })).toThrow(/state.backend/);
    expect(() =>
      validateConfig({ state: { backend: 'redis', redis: { url: 'http://h' } } }),
    ).toThrow(/state.redis.url: must start with redis:\/\//);
    expect(() =>
      validateConfig({ state: { backend: 'redis', redis: { keyPrefix: 'a b' } } }),
    ).toThrow(/state.redis.keyPrefix/);
  });

  it('never logs the password of the URL, and backs off up to 5 s', () => {
    expect(redactUrl('redis://user:s3cret-pass@db.example:6380/2')).toBe(
      'redis://db.example:6380/2',
    );
    expect([1, 2, 3, 10].map(reconnectDelayMs)).toEqual([100, 200, 400, 5_000]);
  });
});

describe.skipIf(missing !== null)(`Redis scripts${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let redis: TestRedis;
  let a: RedisState;
  let b: RedisState;
  const seenByB: SharedChange[] = [];
  const log = captureLogger();

  beforeAll(async () => {
    redis = await startRedis();
    const opts = { url: redis.url, keyPrefix: 'unit:', log };
    a = new RedisState(opts);
    b = new RedisState(opts);
    b.onChange((c) => seenByB.push(c));
    await until('both connected', () => [a, b].every((x) => x.view().status === 'connected'));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
  });

  it('a cooldown only lengthens: a shorter one gets the stored one back', async () => {
    const later = { kind: 'health' as const, id: 'c1', value: cooling(2_000) };
    a.lengthen(later, 2_000, 60_000);
    await until('B hears of it', () => seenByB.some((c) => c.id === 'c1'));
    const seenByA: SharedChange[] = [];
    a.onChange((c) => seenByA.push(c));
    b.lengthen({ kind: 'health', id: 'c1', value: cooling(1_000) }, 1_000, 60_000);
    await until('B adopts the longer one', () =>
      seenByB.some(
        (c) =>
          c.id === 'c1' &&
          (c.value as { rateLimitedUntil: number }).rateLimitedUntil === 2_000 &&
          seenByB.length > 1,
      ),
    );
    // A never heard of the shorter one: it was not stored, so not announced.
    await new Promise((r) => setTimeout(r, 100));
    expect(seenByA.filter((c) => c.id === 'c1')).toEqual([]);
  });

  it('one probe permit across instances, released only by its holder', async () => {
    const first = await a.probe('p1', 10_000);
    expect(first).not.toBeNull();
    expect(await b.probe('p1', 10_000)).toBeNull();
    b.releaseProbe('p1', 'someone-else');
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.probe('p1', 10_000)).toBeNull();
    a.releaseProbe('p1', first!);
    await until('the permit is free', async () => (await b.probe('p1', 10_000)) !== null);
  });

  it('a semaphore permit of a crashed holder lapses at its deadline', async () => {
    const signal = new AbortController().signal;
    const held = await a.permit('s1', 1, 300, 0, signal);
    expect(held.held).toBe(true);
    // A "crashes": it never releases. B waits; the permit lapses after 300 ms.
    const start = Date.now();
    const next = await b.permit('s1', 1, 10_000, 2_000, signal);
    expect(next.held).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(200);
    // A released permit wakes a waiter at once (pub/sub), not at the next poll.
    const waiting = a.permit('s1', 1, 10_000, 2_000, signal);
    next.release();
    expect((await waiting).held).toBe(true);
  });

  it('a lease claim: one owner per connection, generations only go up, stale ones fenced', async () => {
    const claim = (i: RedisState, ownerHash: string, connection: string, generation = 0) =>
      i.claimLease({ connection, ownerHash, previous: null, generation, ttlMs: 5_000 });
    expect(await claim(a, 'alice', 'c1')).toEqual({ kind: 'granted', generation: 1 });
    // Another owner, on either instance, is refused while the claim lasts.
    const held = await claim(b, 'bob', 'c1');
    expect(held).toMatchObject({ kind: 'held' });
    expect((held as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(4_000);
    // The owner again, on B with a mirror that knows only generation 1: generation 2.
    expect(await claim(b, 'alice', 'c1', 1)).toEqual({ kind: 'granted', generation: 2 });
    // A mirror ahead of Redis (a claim lost with a restarted Redis) still moves forward.
    expect(await claim(a, 'alice', 'c1', 6)).toEqual({ kind: 'granted', generation: 7 });
    const fence = (generation: number, action: 'renew' | 'release', ownerHash = 'alice') =>
      a.fenceLease({ connection: 'c1', ownerHash, generation, action, ttlMs: 5_000 });
    expect(await fence(2, 'renew')).toEqual({ kind: 'stale', current: 7 });
    expect(await fence(6, 'release')).toEqual({ kind: 'stale', current: 7 });
    expect(await claim(b, 'bob', 'c1')).toMatchObject({ kind: 'held' });
    expect(await fence(7, 'renew')).toEqual({ kind: 'ok' });
    expect(await fence(1, 'renew', 'bob')).toEqual({ kind: 'taken' });
    expect(await fence(7, 'release')).toEqual({ kind: 'ok' });
    expect(await claim(b, 'bob', 'c1')).toEqual({ kind: 'granted', generation: 1 });
    // Moving to another connection ends the owner's claim on the previous one.
    expect(
      await b.claimLease({
        connection: 'c2',
        ownerHash: 'bob',
        previous: 'c1',
        generation: 1,
        ttlMs: 5_000,
      }),
    ).toEqual({ kind: 'granted', generation: 2 });
    expect(await claim(a, 'alice', 'c1', 7)).toEqual({ kind: 'granted', generation: 8 });
    // A claim lapses with its lease's expiry (a crashed instance leaks nothing).
    expect(
      await a.claimLease({
        connection: 'c3',
        ownerHash: 'x',
        previous: null,
        generation: 0,
        ttlMs: 150,
      }),
    ).toMatchObject({ kind: 'granted' });
    expect(await claim(b, 'bob', 'c3')).toMatchObject({ kind: 'held' });
    await new Promise((r) => setTimeout(r, 250));
    expect(await claim(b, 'bob', 'c3', 2)).toEqual({ kind: 'granted', generation: 3 });
  });

  it('shared counters: the check and the count are one step; decimals are kept', async () => {
    const counters = [
      { id: 'k:req', max: 2, ttlMs: 5_000 },
      { id: 'k:usd', max: 1, ttlMs: 5_000 },
    ];
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) => (n % 2 ? a : b).admitCounters(counters)),
    );
    // Four at once from two instances: exactly two counted, whatever the order.
    expect(answers.filter((r) => r?.admitted)).toHaveLength(2);
    for (const r of answers.filter((x) => !x?.admitted)) expect(r?.used).toEqual([2, 0]);
    // The cost counter reaching its max refuses too, with its decimals read back.
    const other = [
      { id: 'k2:req', max: null, ttlMs: 5_000 },
      { id: 'k2:usd', max: 0.5, ttlMs: 5_000 },
    ];
    a.addCounters([{ id: 'k2:usd', by: 0.25, ttlMs: 5_000 }]);
    expect(await b.admitCounters(other)).toEqual({ admitted: true, used: [0, 0.25] });
    b.addCounters([{ id: 'k2:usd', by: 0.3, ttlMs: 5_000 }]);
    await until(
      'the cost counter refuses',
      async () => (await a.admitCounters(other))?.admitted === false,
    );
    expect((await a.admitCounters(other))?.used[1]).toBeCloseTo(0.55);
  });

  it('a stall of Redis with the sockets open: back by probing, and what was learnt is sent', async () => {
    const stall = redis.stall(2_500);
    // A command during the stall times out (500 ms): this instance counts Redis as away.
    expect(await a.probe('stalled', 1_000)).toBe('local');
    expect(a.view().status).toBe('degraded');
    a.put({ kind: 'breaker', id: 'during-stall', value: OPEN_BREAKER }, null);
    await stall;
    await until('A is back', () => a.view().status === 'connected', 5_000);
    await until('B learns what A kept', () => seenByB.some((c) => c.id === 'during-stall'));
    expect(log.lines.filter((l) => l.includes('team state back (Redis'))).toHaveLength(1);
  });

  it('fails open without Redis: no permit held, writes kept for the reconnect', async () => {
    await redis.stop();
    await until('degraded', () => a.view().status === 'degraded');
    const signal = new AbortController().signal;
    expect((await a.permit('s2', 1, 1_000, 1_000, signal)).held).toBe(false);
    expect(await a.probe('p2', 1_000)).toBe('local');
    expect(
      await a.claimLease({
        connection: 'c9',
        ownerHash: 'o',
        previous: null,
        generation: 0,
        ttlMs: 1,
      }),
    ).toBeNull();
    expect(await a.admitCounters([{ id: 'k:req', max: 1, ttlMs: 1_000 }])).toBeNull();
    a.put({ kind: 'breaker', id: 'offline', value: OPEN_BREAKER }, null);
    await redis.start();
    await until('B learns what A kept', () => seenByB.some((c) => c.id === 'offline'), 10_000);
  });

  it('what was kept during an outage never overwrites a newer write made since', async () => {
    const breaker = (failures: number) => ({
      ...OPEN_BREAKER,
      state: { ...OPEN_BREAKER.state, failures },
    });
    const record = (failures: number) => ({
      kind: 'breaker' as const,
      id: 'kept-then-newer',
      value: breaker(failures),
    });
    const stall = redis.stall(1_500);
    expect(await a.probe('stalled-again', 1_000)).toBe('local');
    a.put(record(1), null);
    // The first thing learnt once back (as a listener of the status does) is newer than what
    // was kept meanwhile: the kept one must not be sent after it.
    let wrote = false;
    a.onStatus((v) => {
      if (v.status !== 'connected' || wrote) return;
      wrote = true;
      a.put(record(2), null);
    });
    await stall;
    await until('A is back', () => a.view().status === 'connected', 5_000);
    const failures = () =>
      seenByB
        .filter((c) => c.id === 'kept-then-newer')
        .map((c) => (c.value as typeof OPEN_BREAKER).state.failures);
    await until('B hears the newer one', () => failures().includes(2));
    await new Promise((r) => setTimeout(r, 200));
    expect(failures().at(-1)).toBe(2);
    // And Redis keeps the newer one: a late instance reads it back.
    const late = new RedisState({ url: redis.url, keyPrefix: 'unit:', log });
    const read: number[] = [];
    late.onChange((c) => {
      if (c.id === 'kept-then-newer') read.push((c.value as typeof OPEN_BREAKER).state.failures);
    });
    try {
      await until('the late one read it', () => read.length > 0);
      expect(read).toEqual([2]);
    } finally {
      await late.close();
    }
  });

  it('a write that timed out is not kept when a newer one of the record was sent after it', async () => {
    const record = (failures: number) => ({
      kind: 'breaker' as const,
      id: 'timed-out-then-newer',
      value: { ...OPEN_BREAKER, state: { ...OPEN_BREAKER.state, failures } },
    });
    const w = new RedisState({ url: redis.url, keyPrefix: 'unit:', log, commandTimeoutMs: 1_000 });
    let late: RedisState | null = null;
    try {
      await until('W connected', () => w.view().status === 'connected');
      // Both reach a stalled Redis while W still counts it as up: the first times out (at
      // 1 s), the second is answered when the stall ends (1.5 s), and Redis ran both in order.
      const stall = redis.stall(1_500);
      w.put(record(1), null);
      await new Promise((r) => setTimeout(r, 700));
      expect(w.view().status).toBe('connected');
      w.put(record(2), null);
      await until('W counts Redis as away', () => w.view().status === 'degraded', 2_000);
      await stall;
      await until('W is back', () => w.view().status === 'connected', 5_000);
      await new Promise((r) => setTimeout(r, 200));
      const read: number[] = [];
      late = new RedisState({ url: redis.url, keyPrefix: 'unit:', log });
      late.onChange((c) => {
        if (c.id === 'timed-out-then-newer')
          read.push((c.value as typeof OPEN_BREAKER).state.failures);
      });
      await until('the late one read it', () => read.length > 0);
      expect(read.at(-1)).toBe(2);
    } finally {
      await Promise.all([w.close(), late?.close()]);
    }
  });

  it('a resync does not end on a record older than what a peer announced while it read', async () => {
    // The reader's reads are answered 1 s late (within its command timeout); the writer's newer
    // record is announced to it meanwhile, and so is garbage naming another record, which must
    // not make the resync pass over that one.
    const proxy = await slowReadsProxy(redis.port, 1_000);
    const opts = { keyPrefix: 'slow-read:', log };
    const writer = new RedisState({ ...opts, url: redis.url });
    const peer = new Redis(redis.url);
    let reader: RedisState | null = null;
    const record = (id: string, failures: number) => ({
      kind: 'breaker' as const,
      id,
      value: { ...OPEN_BREAKER, state: { ...OPEN_BREAKER.state, failures } },
    });
    const hostile = (id: string) => [
      'null',
      '[1,2]',
      '"text"',
      JSON.stringify({ from: 'x', kind: 'breaker', id, v: 'sk-hostile-secret-1' }),
      JSON.stringify({ from: 'x', kind: 'breaker', id, v: { state: { name: 'sk-hostile-2' } } }),
      JSON.stringify({ from: 'x', kind: 'breaker', id: { id }, v: OPEN_BREAKER }),
      JSON.stringify({ from: 'x', kind: 'breaker', id: id.repeat(50_000), v: OPEN_BREAKER }),
      `{"from":"x","kind":"breaker","id":"${id}","v":${'['.repeat(5_000)}`,
    ];
    try {
      await until('the writer connected', () => writer.view().status === 'connected');
      writer.put(record('read-late', 1), null);
      writer.put(record('read-kept', 7), null);
      await new Promise((r) => setTimeout(r, 100));
      const heard = new Map<string, number[]>();
      reader = new RedisState({ ...opts, url: proxy.url, commandTimeoutMs: 5_000 });
      reader.onChange((c) => {
        const seen = heard.get(c.id) ?? [];
        heard.set(c.id, [...seen, (c.value as typeof OPEN_BREAKER).state.failures]);
      });
      // Connected, its resync's SCAN goes out: answered at 1 s, then the values read at 2 s.
      await until('the reader connected', () => reader?.view().status === 'connected');
      const channel = plainLayout(redis.url, 'slow-read:').changeChannels[0]!;
      await Promise.all(hostile('read-kept').map((m) => peer.publish(channel, m)));
      await new Promise((r) => setTimeout(r, 1_500));
      writer.put(record('read-late', 2), null);
      await until(
        'the reader heard the newer one',
        () => heard.get('read-late')?.includes(2) === true,
      );
      await new Promise((r) => setTimeout(r, 1_200));
      expect(heard.get('read-late')?.at(-1)).toBe(2);
      // Every piece of garbage reached the reader, and was dropped there.
      expect(reader.droppedPeerRecords()).toBe(hostile('read-kept').length);
      expect(heard.get('read-kept')).toEqual([7]);
      expect(log.lines.join('\n')).not.toContain('sk-hostile');
    } finally {
      peer.disconnect();
      await Promise.all([writer.close(), reader?.close()]);
      await proxy.close();
    }
  });

  it('teams split by database number do not hear each other (pub/sub ignores the number)', async () => {
    const opts = { keyPrefix: 'unit:', log };
    const one = new RedisState({ ...opts, url: `${redis.url}/1` });
    const alsoOne = new RedisState({ ...opts, url: `${redis.url}?db=1` });
    const two = new RedisState({ ...opts, url: `${redis.url}/2` });
    const heard = { alsoOne: [] as string[], two: [] as string[] };
    alsoOne.onChange((c) => heard.alsoOne.push(c.id));
    two.onChange((c) => heard.two.push(c.id));
    try {
      const all = [one, alsoOne, two];
      await until('all connected', () => all.every((x) => x.view().status === 'connected'));
      one.put({ kind: 'breaker', id: 'db-one', value: OPEN_BREAKER }, null);
      await until('the same database hears it', () => heard.alsoOne.includes('db-one'));
      await new Promise((r) => setTimeout(r, 100));
      expect(heard.two).toEqual([]);
    } finally {
      await Promise.all([one.close(), alsoOne.close(), two.close()]);
    }
  });
});
