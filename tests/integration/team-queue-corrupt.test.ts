// Team request queues on a real Redis whose limiter keys were overwritten with the wrong type (by
// a peer, a script or a person). Bottleneck reports such an error as an event and leaves the job
// queued for good, so without a guard every request to the connection waited out `maxWaitMs`
// (seen in the peer-data fuzz). The waiters go ahead instead, and the next limiter rewrites the
// keys, so the shared limit holds again.
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/main/engine/logger';
import {
  QueueRejection,
  type QueueSlot,
  RequestQueues,
} from '../../src/main/engine/resilience/flow/request-queue';
import { redisMissing, startRedis, type TestRedis } from '../support/redis';

const missing = redisMissing();
const PREFIX = 'bwqc:';
const LIMITS = { maxQueueDepth: 100, maxWaitMs: 20_000, executionMaxWaitMs: 60_000 };
const RPM = { requestsPerMinute: 100_000 };

function logger(lines: string[]): Logger {
  const keep = (m: string) => lines.push(m);
  return { debug: () => {}, info: keep, warn: keep, error: keep } as unknown as Logger;
}

describe.skipIf(missing !== null)(
  `team queues on corrupt limiter keys${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestRedis;
    let admin: Redis;
    let client: Redis;
    let connection: Bottleneck.IORedisConnection;

    beforeAll(async () => {
      redis = await startRedis();
      admin = new Redis(redis.url);
      client = new Redis(redis.url);
      connection = new Bottleneck.IORedisConnection({ client });
      await connection.ready;
    });
    afterAll(async () => {
      await connection?.disconnect(false);
      admin?.disconnect();
      await redis?.close();
    });

    const queuesWith = (lines: string[]) =>
      new RequestQueues(
        { connection, id: (name) => `${PREFIX}${name}`, usable: () => true },
        logger(lines),
      );

    const take = (q: RequestQueues, conn: string): Promise<QueueSlot | QueueRejection> =>
      q.acquire('p', conn, RPM, LIMITS, 60_000, new AbortController().signal);

    async function slotWithin(
      p: Promise<QueueSlot | QueueRejection>,
      ms: number,
    ): Promise<QueueSlot> {
      const r = await Promise.race([
        p,
        new Promise<'stalled'>((done) => setTimeout(() => done('stalled'), ms)),
      ]);
      if (r === 'stalled') throw new Error(`no slot within ${ms} ms`);
      if (r instanceof QueueRejection) throw new Error(`refused: ${r.message}`);
      return r;
    }

    for (const suffix of ['job_weights', 'job_clients', 'client_running', 'client_last_registered'])
      it(`a ${suffix} key of the wrong type: waiters go ahead, and the keys are rewritten`, async () => {
        const lines: string[] = [];
        const q = queuesWith(lines);
        const conn = `c-${suffix}`;
        try {
          (await slotWithin(take(q, conn), 5_000)).release();
          const key = `b_${PREFIX}p/${conn}_${suffix}`;
          await admin.set(key, 'garbage');
          // Two at once: every waiter of the broken limiter is let go, not only the first.
          const [a, b] = await Promise.all([
            slotWithin(take(q, conn), 3_000),
            slotWithin(take(q, conn), 3_000),
          ]);
          a.release();
          b.release();
          expect(lines.join('\n')).toMatch(/Redis refused its limiter keys/);
          expect(lines.join('\n')).not.toContain('garbage');
          // The next limiter rewrote the keys: jobs are placed in Redis again, with no new error.
          const before = lines.length;
          for (let i = 0; i < 3; i++) (await slotWithin(take(q, conn), 3_000)).release();
          expect(lines.slice(before)).toEqual([]);
          expect(await admin.type(key)).not.toBe('string');
          expect(q.views().find((v) => v.connection === conn)).toMatchObject({
            running: 0,
            queued: 0,
          });
        } finally {
          await q.close();
        }
      });
  },
);
