// Team mode (issue 16): two gateway processes (`breakwater serve`) on one real Redis and the fake
// upstream. What one instance learns, the other acts on; the contended transitions hold across
// both; and a Redis outage costs no request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, ProviderConfig } from '../../src/shared/contract';
import { killCliRuns } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { redisMissing, startRedis, type TestRedis } from '../support/redis';
import { chat, startInstance, type TeamInstance, until } from '../support/team';

const missing = redisMissing();
const KEY = 'sk-test-team-0123456789abcdef';
const NAMES = ['rl', 'bk', 'br', 'mc', 'bn', 'ld', 'rs'] as const;
type Name = (typeof NAMES)[number];

function provider(id: Name, fake: FakeUpstream, extra: object = {}): ProviderConfig {
  return {
    id,
    format: 'openai',
    baseUrl: `${fake.url}/v1`,
    authClass: 'api_key',
    connections: [{ id: `${id}-1`, apiKey: KEY, ...extra }],
    models: ['m'],
  };
}

function teamConfig(f: Record<Name, FakeUpstream>): BreakwaterConfig {
  return {
    providers: [
      provider('rl', f.rl),
      provider('bk', f.bk),
      provider('br', f.br),
      provider('mc', f.mc, { maxConcurrent: 1 }),
      provider('bn', f.bn, { rateLimit: { requestsPerMinute: 3 } }),
      provider('ld', f.ld),
      provider('rs', f.rs),
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
    },
  };
}

describe.skipIf(missing !== null)(
  `team mode on Redis${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestRedis;
    let root: string;
    const fakes = {} as Record<Name, FakeUpstream>;
    let a: TeamInstance;
    let b: TeamInstance;

    beforeAll(async () => {
      redis = await startRedis();
      root = mkdtempSync(join(tmpdir(), 'bw-team-'));
      for (const n of NAMES) fakes[n] = await startFakeUpstream({ models: ['m'] });
      const config = teamConfig(fakes);
      const shared = { url: redis.url, keyPrefix: 'bwtest:' };
      [a, b] = await Promise.all([
        startInstance('a', root, config, shared),
        startInstance('b', root, config, shared),
      ]);
      for (const i of [a, b])
        await until(`${i.name} connected`, async () => (await i.team())?.status === 'connected');
    }, 60_000);

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      killCliRuns();
      await Promise.all(Object.values(fakes).map((f) => f.close()));
      await redis?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('/api/health says where the state lives', async () => {
      expect(await a.team()).toEqual({ backend: 'redis', status: 'connected' });
      expect((await b.state()).team).toEqual({ backend: 'redis', status: 'connected' });
    });

    it('a 429 with Retry-After on A makes B skip that connection without calling it', async () => {
      fakes.rl.script({ status: 429, headers: { 'retry-after': '30' } });
      const first = await chat(a.url, 'cool');
      expect(first.status).toBe(200);
      expect(fakes.rl.requestCount).toBe(1);
      const took = await until('B sees rl-1 cooling', async () => {
        const c = (await b.state()).connections.find((x) => x.id === 'rl-1');
        return c?.status === 'unavailable' && (c.rateLimitedUntil ?? 0) > Date.now() + 20_000;
      });
      expect(took).toBeLessThan(1_000);
      const onB = await chat(b.url, 'cool');
      expect(onB.status).toBe(200);
      expect(onB.headers.get('x-breakwater-decision') ?? '').toContain('bk');
      expect(fakes.rl.requestCount).toBe(1);
      expect(fakes.bk.requestCount).toBe(2);
    });

    it('a breaker opened on A is open on B, and one probe runs across both', async () => {
      fakes.br.setDefault({ status: 500 });
      for (let i = 0; i < 3; i++)
        expect((await chat(a.url, 'br/m')).status).toBeGreaterThanOrEqual(500);
      await until('B sees the breaker of br open', async () => {
        const br = (await b.state()).breakers.find((x) => x.provider === 'br');
        return br?.state === 'OPEN';
      });
      const before = fakes.br.requestCount;
      // Refused on B without a call: the circuit is open there too.
      expect((await chat(b.url, 'br/m')).status).toBe(503);
      expect(fakes.br.requestCount).toBe(before);
      // The reset timeout (1.5 s) passes on both: six requests at once, one probe between them.
      await new Promise((r) => setTimeout(r, 1_700));
      fakes.br.setDefault({ delayMs: 400 });
      const answers = await Promise.all(
        [a, b, a, b, a, b].map((i) => chat(i.url, 'br/m').then((r) => r.status)),
      );
      expect(fakes.br.requestCount - before).toBe(1);
      expect(answers.filter((s) => s === 200)).toHaveLength(1);
      await until('both breakers closed', async () => {
        const all = await Promise.all([a.state(), b.state()]);
        return all.every((s) => s.breakers.find((x) => x.provider === 'br')?.state === 'CLOSED');
      });
    });

    it('maxConcurrent: 1 holds across both instances', async () => {
      fakes.mc.setDefault({ delayMs: 300 });
      const answers = await Promise.all(
        [a, b, a, b, a, b].map((i) => chat(i.url, 'mc/m').then((r) => r.status)),
      );
      expect(answers).toEqual([200, 200, 200, 200, 200, 200]);
      const at = fakes.mc.requests.map((r) => r.at).sort((x, y) => x - y);
      expect(at).toHaveLength(6);
      // Each call holds the connection 300 ms: the next one cannot start before it ended.
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(290);
    });

    it('a Bottleneck-limited connection keeps its per-minute limit across both', async () => {
      expect((await chat(a.url, 'bn/m')).status).toBe(200);
      expect((await chat(a.url, 'bn/m')).status).toBe(200);
      expect((await chat(b.url, 'bn/m')).status).toBe(200);
      // The fourth within the minute waits in the team's queue until maxWaitMs and is refused.
      const fourth = await chat(b.url, 'bn/m');
      expect(fourth.status).toBe(429);
      expect(JSON.stringify(await fourth.json())).toContain('RATE_LIMIT_QUEUE_TIMEOUT');
      expect(fakes.bn.requestCount).toBe(3);
    });

    it('Redis stopped mid-load: no request fails, both degrade, recover and resynchronise', async () => {
      let running = true;
      const statuses: number[] = [];
      const worker = async (i: TeamInstance) => {
        while (running) statuses.push((await chat(i.url, 'ld/m')).status);
      };
      const load = Promise.all([worker(a), worker(b), worker(a), worker(b)]);
      await new Promise((r) => setTimeout(r, 300));
      await redis.stop();
      await until('both degraded', async () =>
        (await Promise.all([a.team(), b.team()])).every((t) => t?.status === 'degraded'),
      );
      // Learnt while Redis is away: kept, and sent once it is back.
      fakes.rs.script({ status: 429, headers: { 'retry-after': '60' } });
      expect((await chat(a.url, 'resync')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      await redis.start();
      await until(
        'both connected again',
        async () =>
          (await Promise.all([a.team(), b.team()])).every((t) => t?.status === 'connected'),
        15_000,
      );
      await until('B learnt the cooldown A saw during the outage', async () => {
        const c = (await b.state()).connections.find((x) => x.id === 'rs-1');
        return c?.status === 'unavailable';
      });
      running = false;
      await load;
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // Both tell their event stream what happened (the dashboard and tray read it).
      expect(a.run.stderr()).toContain('team state unavailable');
    }, 40_000);
  },
);
