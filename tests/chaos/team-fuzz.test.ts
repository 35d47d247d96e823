// Peer-data fuzz (issue 27): two team instances (`breakwater serve`) serve on one real Redis while
// random and truncated values are written to every key of the team prefix and published on its
// channels. Neither instance crashes and no request fails: what another instance "wrote" is
// checked before it is used, and what Redis holds wrongly is not taken for an outage.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { killCliRuns } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { redisMissing, startRedis, type TestRedis } from '../support/redis';
import { chat, startInstance, type TeamInstance, until } from '../support/team';
import { LONG, scale } from './support/harness';

const missing = redisMissing();
const PREFIX = 'bwfuzz:';
const KEY = 'sk-test-fuzz-0123456789abcdef';
const GATEWAY_KEY = 'bw-fuzz-plain-key-0123456789';
const ROUNDS = scale(15, 150);
const TIMEOUT = scale(60_000, 600_000);
/** Records as instances write them, to cut short or garble. */
const SAMPLES = [
  '{"from":"x","kind":"health","id":"fa-1","v":{"status":"unavailable","rateLimitedUntil":9e15}}',
  '{"from":"x","kind":"breaker","id":"fa","v":{"state":{"name":"OPEN","failures":3}}}',
  '{"from":"x","kind":"lease","id":"o:1","v":{"ownerHash":"o","generation":1}}',
  '{"from":"x","kind":"lockout","id":"fa:fa-1:m","v":{"key":"fa:fa-1:m","expiresAt":1e300}}',
  '{"from":"x","kind":"pin","id":"s","v":{"connection":null}}',
  '{"from":"x","kind":"quota","id":"fa-1","v":{"learnedAt":"x"}}',
];

function config(fake: FakeUpstream): BreakwaterConfig {
  const provider = (id: string, extra: object = {}) => ({
    id,
    format: 'openai' as const,
    baseUrl: `${fake.url}/v1`,
    authClass: 'api_key' as const,
    connections: [{ id: `${id}-1`, apiKey: KEY, ...extra }],
    models: ['m'],
  });
  return {
    gateway: { apiKeys: [{ name: 'team', key: GATEWAY_KEY }] },
    // A plain connection, one with a team semaphore and one with a team request queue.
    providers: [
      provider('fa'),
      provider('fm', { maxConcurrent: 4 }),
      provider('fq', { rateLimit: { requestsPerMinute: 100_000 } }),
    ],
  };
}

const hostileValue = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom(...SAMPLES).chain((s) => fc.nat(s.length).map((n) => s.slice(0, n))),
  fc.json({ maxDepth: 4 }),
  fc.constantFrom('null', '[]', '{}', '-1', '1e309', 'NaN', '9007199254740993'),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
);

/** Overwrites `key` with `value`, as a string, a hash (as records are kept), a sorted set or a list. */
async function garble(redis: Redis, key: string, value: string, shape: number): Promise<void> {
  // One transaction: an instance writing the key meanwhile must not make the test's write fail.
  const m = redis.multi().del(key);
  if (shape === 0) m.set(key, value);
  else if (shape === 1) m.hset(key, 'v', value, 'u', value, 'o', value, 'g', value);
  else if (shape === 2) m.zadd(key, '1', value);
  else m.rpush(key, value);
  await m.exec();
}

describe.skipIf(missing !== null)(
  `chaos: peer-data fuzz${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestRedis;
    let client: Redis;
    let root: string;
    let fake: FakeUpstream;
    let instances: TeamInstance[] = [];
    const figures = { rounds: 0, keys: 0, messages: 0, requests: 0 };

    beforeAll(async () => {
      redis = await startRedis();
      client = new Redis(redis.url);
      root = mkdtempSync(join(tmpdir(), 'bw-team-fuzz-'));
      fake = await startFakeUpstream({ models: ['m'] });
      const shared = { url: redis.url, keyPrefix: PREFIX };
      instances = await Promise.all(
        ['a', 'b'].map((n) => startInstance(n, root, config(fake), shared)),
      );
      for (const i of instances)
        await until(`${i.name} connected`, async () => (await i.team())?.status === 'connected');
    }, 60_000);

    afterAll(async () => {
      await Promise.all(instances.map((i) => i.stop()));
      killCliRuns();
      client?.disconnect();
      await fake?.close();
      await redis?.close();
      if (root) rmSync(root, { recursive: true, force: true });
      console.log(`team fuzz ${LONG ? 'long' : 'short'} run: ${JSON.stringify(figures)}`);
    });

    it(
      'random and truncated values on every key and channel: 0 crashes, 0 failed requests',
      async () => {
        const failures: string[] = [];
        const serve = async (round: number) => {
          const asks = instances.flatMap((i) =>
            ['fa/m', 'fm/m', 'fq/m'].map(async (model) => {
              const res = await chat(i.url, model, { authorization: `Bearer ${GATEWAY_KEY}` });
              figures.requests++;
              if (res.status !== 200)
                failures.push(
                  `round ${round} ${i.name} ${model}: ${res.status} ${await res.text()}`,
                );
            }),
          );
          await Promise.all(asks);
        };
        const deadline = Date.now() + TIMEOUT - 10_000;
        for (let round = 0; round < ROUNDS && Date.now() < deadline; round++) {
          figures.rounds++;
          // Every key the team holds now (Bottleneck names its queue keys `b_<limiter id>_…`),
          // plus the names each mechanism would use.
          const keys = new Set([
            ...(await client.keys(`${PREFIX}*`)),
            ...(await client.keys(`b_${PREFIX}*`)),
          ]);
          for (const k of ['rec:health:fa-1', 'rec:breaker:fa', 'sem:fm-1', 'lease:fa-1'])
            keys.add(`${PREFIX}${k}`);
          const values = fc.sample(hostileValue, keys.size + 8);
          const served = serve(round);
          let n = 0;
          for (const key of keys) {
            await garble(client, key, values[n]!, n % 4);
            n++;
            figures.keys++;
          }
          for (const channel of ['changes', 'permits', 'db1:changes']) {
            for (let i = 0; i < 3; i++) {
              await client.publish(`${PREFIX}${channel}`, values[n++ % values.length]!);
              figures.messages++;
            }
          }
          await client.publish(`${PREFIX}changes`, randomBytes(32));
          await served;
          for (const i of instances)
            expect(i.run.child.exitCode, `${i.name} exited: ${i.run.stderr()}`).toBeNull();
        }
        // Let the instances learn their own state again before the last look.
        await client.flushall();
        await serve(-1);
        expect(failures).toEqual([]);
        for (const i of instances) {
          expect(i.run.child.exitCode).toBeNull();
          expect((await i.team())?.status).toBe('connected');
        }
      },
      TIMEOUT,
    );
  },
);
