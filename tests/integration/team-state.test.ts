// The Redis backend's atomic steps on a real Redis, two backends standing for two instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/main/engine/config/validate';
import type { SharedChange } from '../../src/main/engine/state/backend';
import { openStateBackend, redactUrl } from '../../src/main/engine/state/index';
import { RedisState, reconnectDelayMs } from '../../src/main/engine/state/redis';
import { captureLogger } from '../support/gateway';
import { redisMissing, startRedis, type TestRedis } from '../support/redis';
import { until } from '../support/team';

const missing = redisMissing();

describe('choosing the backend', () => {
  const deps = { log: captureLogger(), emit() {}, clock: { now: () => 0 } };

  it('is local unless the config or BREAKWATER_REDIS_URL asks for Redis', async () => {
    expect(openStateBackend(undefined, { ...deps, env: {} }).kind).toBe('local');
    expect(openStateBackend({ backend: 'local' }, { ...deps, env: {} }).view()).toEqual({
      backend: 'local',
      status: 'connected',
    });
    expect(() => openStateBackend({ backend: 'redis' }, { ...deps, env: {} })).toThrow(
      /state.redis.url or BREAKWATER_REDIS_URL/,
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

  beforeAll(async () => {
    redis = await startRedis();
    const opts = { url: redis.url, keyPrefix: 'unit:', log: captureLogger() };
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
    const later = { kind: 'health' as const, id: 'c1', value: { until: 2_000 } };
    a.lengthen(later, 2_000, 60_000);
    await until('B hears of it', () => seenByB.some((c) => c.id === 'c1'));
    const seenByA: SharedChange[] = [];
    a.onChange((c) => seenByA.push(c));
    b.lengthen({ kind: 'health', id: 'c1', value: { until: 1_000 } }, 1_000, 60_000);
    await until('B adopts the longer one', () =>
      seenByB.some(
        (c) =>
          c.id === 'c1' && (c.value as { until: number }).until === 2_000 && seenByB.length > 1,
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

  it('fails open without Redis: no permit held, writes kept for the reconnect', async () => {
    await redis.stop();
    await until('degraded', () => a.view().status === 'degraded');
    const signal = new AbortController().signal;
    expect((await a.permit('s2', 1, 1_000, 1_000, signal)).held).toBe(false);
    expect(await a.probe('p2', 1_000)).toBe('local');
    a.put({ kind: 'breaker', id: 'offline', value: { state: 'OPEN' } }, null);
    await redis.start();
    await until('B learns what A kept', () => seenByB.some((c) => c.id === 'offline'), 10_000);
  });
});
