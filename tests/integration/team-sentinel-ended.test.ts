// A Sentinel connection that ioredis gave up on (status `end`) while its owner still wants it:
// ioredis ends one when the failover detector of an earlier connection hears `+switch-master`
// while a reconnect is asking a Sentinel for the primary (redis-target.ts). The race itself
// needs a failover to land inside a round trip; these hold what must follow any such end.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectOptions,
  openClient,
  type RedisTarget,
  targetOf,
} from '../../src/main/engine/state/redis-target';
import { haRedisMissing, startRedisSentinel, type TestHaRedis } from '../support/redis';
import { until } from '../support/team';

const missing = haRedisMissing();

describe.skipIf(missing !== null)(
  `a Sentinel connection ended under its owner${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestHaRedis;
    let target: RedisTarget;
    const clients: Redis[] = [];

    beforeAll(async () => {
      redis = await startRedisSentinel();
      const t = targetOf(redis.config, {});
      if (!t) throw new Error('no target');
      target = t;
    }, 60_000);
    afterAll(async () => {
      for (const c of clients) c.disconnect();
      await redis?.close();
    });

    function open(state: { closed: boolean }, subscriber = false): Redis {
      const options: ConnectOptions = {
        enableOfflineQueue: subscriber,
        maxRetriesPerRequest: subscriber ? null : 0,
        connectTimeout: 2_000,
        retryStrategy: () => (state.closed ? null : 50),
        closed: () => state.closed,
      };
      const client = openClient(target, options, subscriber) as Redis;
      client.on('error', () => {});
      clients.push(client);
      return client;
    }

    /** Once `client` is ready, ends it as the race does: ended, with no retry of its own. */
    async function endWhenReady(client: Redis): Promise<void> {
      await until('ready', () => client.status === 'ready', 10_000);
      const end = new Promise<void>((resolve) => client.once('end', () => resolve()));
      client.disconnect();
      await end;
    }

    it('is opened again, and answers', async () => {
      const state = { closed: false };
      const client = open(state);
      await endWhenReady(client);
      await until('ready again', () => client.status === 'ready', 10_000);
      expect(await client.ping()).toBe('PONG');
    });

    it('ends more than once and comes back each time (a subscriber too)', async () => {
      const state = { closed: false };
      const sub = open(state, true);
      for (let i = 0; i < 3; i++) await endWhenReady(sub);
      await until('ready after three ends', () => sub.status === 'ready', 10_000);
      await sub.subscribe('bw-test');
      const heard = new Promise<string>((resolve) => sub.once('message', (_c, m) => resolve(m)));
      const pub = open({ closed: false });
      await until('publisher ready', () => pub.status === 'ready', 10_000);
      await pub.publish('bw-test', 'hello');
      expect(await heard).toBe('hello');
    });

    it('stays closed once its owner closed it', async () => {
      const state = { closed: false };
      const client = open(state);
      await until('ready', () => client.status === 'ready', 10_000);
      state.closed = true;
      await endWhenReady(client);
      await new Promise((r) => setTimeout(r, 300));
      expect(client.status).toBe('end');
    });

    it('stays closed when its owner closes it while a reopen is waiting', async () => {
      const state = { closed: false };
      const client = open(state);
      await endWhenReady(client);
      // The reopen waits the retry delay (50 ms here); closed meanwhile, it must not run.
      state.closed = true;
      await new Promise((r) => setTimeout(r, 300));
      expect(client.status).toBe('end');
    });
  },
);
