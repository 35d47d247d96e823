// The team-mode scenarios (issue 16) on any Redis: two gateway processes (`breakwater serve`)
// sharing it, and the fake upstream. What one instance learns, the other acts on; the contended
// transitions hold across both; and a Redis outage, or a failover of a highly available one
// (issue 34), costs no request. tests/integration/team.test.ts runs them on one Redis,
// team-ha.test.ts on a Cluster and behind Sentinel.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clusterLayout } from '../../src/main/engine/state/redis-keys';
import { killCliRuns } from './cli-run';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream';
import { chat, startInstance, type TeamInstance, until } from './team';
import {
  ALICE,
  AS,
  BOB,
  CAPPED,
  CAROL,
  DAVE,
  eventOf,
  lease,
  NAMES,
  type Name,
  TEAM,
  type TeamRedis,
  teamConfig,
} from './team-rig';

export { listenOn, type TeamRedis } from './team-rig';

const PREFIX = 'bwtest:';

/** Registers every scenario in the calling `describe`, on the Redis `open` starts. */
export function teamScenarios(
  open: () => Promise<TeamRedis>,
  forms: { outage: boolean; failover: boolean },
): void {
  let redis: TeamRedis;
  let root: string;
  const fakes = {} as Record<Name, FakeUpstream>;
  let a: TeamInstance;
  let b: TeamInstance;

  beforeAll(async () => {
    redis = await open();
    root = mkdtempSync(join(tmpdir(), 'bw-team-'));
    for (const n of NAMES) fakes[n] = await startFakeUpstream({ models: ['m'] });
    const config = teamConfig(fakes);
    const shared = { ...redis.state, keyPrefix: PREFIX };
    [a, b] = await Promise.all([
      startInstance('a', root, config, shared),
      startInstance('b', root, config, shared),
    ]);
    for (const i of [a, b])
      await until(`${i.name} connected`, async () => (await i.team())?.status === 'connected');
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    killCliRuns();
    await Promise.all(Object.values(fakes).map((f) => f.close()));
    await redis?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The same settings on both instances (null: back to the default). */
  const settingsOnBoth = (settings: Record<string, unknown>) =>
    Promise.all(
      [a, b].map((i) =>
        i.admin('/api/settings', { method: 'PATCH', body: JSON.stringify(settings) }),
      ),
    );

  it('/api/health says where the state lives', async () => {
    expect(await a.team()).toEqual({ backend: 'redis', status: 'connected' });
    expect((await b.state()).team).toEqual({ backend: 'redis', status: 'connected' });
  });

  it('a 429 with Retry-After on A makes B skip that connection without calling it', async () => {
    const events = await b.admin('/api/events');
    const heard = eventOf(events, 'connection.cooldown');
    fakes.rl.script({ status: 429, headers: { 'retry-after': '30' } });
    const sent = Date.now();
    const first = await chat(a.url, 'cool', AS(TEAM));
    expect(first.status).toBe(200);
    expect(fakes.rl.requestCount).toBe(1);
    const took = await until('B sees rl-1 cooling', async () => {
      const c = (await b.state()).connections.find((x) => x.id === 'rl-1');
      return c?.status === 'unavailable' && (c.rateLimitedUntil ?? 0) > Date.now() + 20_000;
    });
    expect(took).toBeLessThan(1_000);
    // B's event stream (the dashboard's and the tray's source) says so, within a second.
    const event = await heard;
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(event).toMatchObject({ connection: 'rl-1', status: 'unavailable' });
    expect(event.cause).toContain('learnt by another instance');
    const onB = await chat(b.url, 'cool', AS(TEAM));
    expect(onB.status).toBe(200);
    expect(onB.headers.get('x-breakwater-decision') ?? '').toContain('bk');
    expect(fakes.rl.requestCount).toBe(1);
    expect(fakes.bk.requestCount).toBe(2);
  });

  it('model lockouts and session pins learnt on A show on B; clearing on A clears on B', async () => {
    const lockouts = (on: boolean) =>
      Promise.all(
        [a, b].map((i) =>
          i.admin('/api/resilience', {
            method: 'PATCH',
            body: JSON.stringify({ 'modelLockout.enabled': on }),
          }),
        ),
      );
    await lockouts(true);
    fakes.lk.script({ status: 404 });
    expect((await chat(a.url, 'lk/m', AS(TEAM))).status).toBe(404);
    await until('B sees the lockout', async () =>
      (await b.state()).lockouts.some((l) => l.connection === 'lk-1' && l.model === 'm'),
    );
    const before = fakes.lk.requestCount;
    expect((await chat(b.url, 'lk/m', AS(TEAM))).status).toBe(503);
    expect(fakes.lk.requestCount).toBe(before);
    const cleared = await a.admin('/api/resilience/model-cooldowns', {
      method: 'DELETE',
      body: JSON.stringify({ provider: 'lk', connection: 'lk-1', model: 'm' }),
    });
    expect(cleared.status).toBe(200);
    await until('B sees it cleared', async () =>
      (await b.state()).lockouts.every((l) => l.connection !== 'lk-1'),
    );
    expect((await chat(b.url, 'lk/m', AS(TEAM))).status).toBe(200);
    await lockouts(false);
    // A session served on A is pinned on B too.
    expect((await chat(a.url, 'ld/m', { ...AS(TEAM), 'x-session-id': 'team-s1' })).status).toBe(
      200,
    );
    await until('B has the pin', async () =>
      (await b.state()).sessions.some((p) => p.session === 'team-s1' && p.connection === 'ld-1'),
    );
  });

  it('a breaker opened on A is open on B, and one probe runs across both', async () => {
    fakes.br.setDefault({ status: 500 });
    for (let i = 0; i < 3; i++)
      expect((await chat(a.url, 'br/m', AS(TEAM))).status).toBeGreaterThanOrEqual(500);
    await until('B sees the breaker of br open', async () => {
      const br = (await b.state()).breakers.find((x) => x.provider === 'br');
      return br?.state === 'OPEN';
    });
    const before = fakes.br.requestCount;
    // Refused on B without a call: the circuit is open there too.
    expect((await chat(b.url, 'br/m', AS(TEAM))).status).toBe(503);
    expect(fakes.br.requestCount).toBe(before);
    // The reset timeout (1.5 s) passes on both: six requests at once, one probe between them.
    await new Promise((r) => setTimeout(r, 1_700));
    fakes.br.setDefault({ delayMs: 400 });
    const answers = await Promise.all(
      [a, b, a, b, a, b].map((i) => chat(i.url, 'br/m', AS(TEAM)).then((r) => r.status)),
    );
    expect(fakes.br.requestCount - before).toBe(1);
    expect(answers.filter((s) => s === 200)).toHaveLength(1);
    await until('both breakers closed', async () => {
      const all = await Promise.all([a.state(), b.state()]);
      return all.every((s) => s.breakers.find((x) => x.provider === 'br')?.state === 'CLOSED');
    });
  });

  it('a connection cooled for a day is re-probed by exactly one request across both instances', async () => {
    const reprobe = (ms: number | null) => settingsOnBoth({ 'cooldown.reprobeAfterMs': ms });
    await reprobe(800);
    fakes.rp.script({
      status: 429,
      headers: { 'retry-after': '86400' },
      body: {
        error: { message: 'You have reached your monthly usage limit', type: 'rate_limit' },
      },
    });
    expect((await chat(a.url, 'rp/m', AS(TEAM))).status).toBe(429);
    await until('B sees rp-1 cooling', async () => {
      const c = (await b.state()).connections.find((x) => x.id === 'rp-1');
      return c?.status === 'unavailable';
    });
    await new Promise((r) => setTimeout(r, 900));
    // The fake recovered; four requests at once on both instances: one probe between them.
    fakes.rp.setDefault({ delayMs: 400 });
    const answers = await Promise.all(
      [a, b, a, b].map((i) => chat(i.url, 'rp/m', AS(TEAM)).then((r) => r.status)),
    );
    expect(fakes.rp.requestCount).toBe(2);
    expect(answers.filter((s) => s === 200)).toHaveLength(1);
    await until('both see rp-1 active again', async () => {
      const all = await Promise.all([a.state(), b.state()]);
      return all.every((s) => s.connections.find((x) => x.id === 'rp-1')?.status === 'active');
    });
    await reprobe(null);
  });

  it('a model locked for a day is re-probed by exactly one request across both instances', async () => {
    const lockout = (on: boolean) =>
      settingsOnBoth({
        'cooldown.reprobeAfterMs': on ? 800 : null,
        'modelLockout.enabled': on ? true : null,
        'modelLockout.baseCooldownMs': on ? 86_400_000 : null,
        'modelLockout.maxCooldownMs': on ? 86_400_000 : null,
      });
    const locks = async (i: TeamInstance) =>
      (await (await i.admin('/api/resilience/model-cooldowns')).json()) as unknown[];
    await lockout(true);
    fakes.rm.script({ status: 404 });
    expect((await chat(a.url, 'rm/m', AS(TEAM))).status).toBe(404);
    await until('B sees rm/m locked', async () => (await locks(b)).length === 1);
    await new Promise((r) => setTimeout(r, 900));
    fakes.rm.setDefault({ delayMs: 400 });
    const answers = await Promise.all(
      [a, b, a, b].map((i) => chat(i.url, 'rm/m', AS(TEAM)).then((r) => r.status)),
    );
    expect(fakes.rm.requestCount).toBe(2);
    expect(answers.filter((s) => s === 200)).toHaveLength(1);
    await until('both see the lock gone', async () =>
      (await Promise.all([locks(a), locks(b)])).every((l) => l.length === 0),
    );
    await lockout(false);
  });

  it('maxConcurrent: 1 holds across both instances', async () => {
    fakes.mc.setDefault({ delayMs: 300 });
    const answers = await Promise.all(
      [a, b, a, b, a, b].map((i) => chat(i.url, 'mc/m', AS(TEAM)).then((r) => r.status)),
    );
    expect(answers).toEqual([200, 200, 200, 200, 200, 200]);
    const at = fakes.mc.requests.map((r) => r.at).sort((x, y) => x - y);
    expect(at).toHaveLength(6);
    // Each call holds the connection 300 ms: the next one cannot start before it ended.
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(290);
  });

  it('a Bottleneck-limited connection keeps its per-minute limit across both', async () => {
    expect((await chat(a.url, 'bn/m', AS(TEAM))).status).toBe(200);
    expect((await chat(a.url, 'bn/m', AS(TEAM))).status).toBe(200);
    expect((await chat(b.url, 'bn/m', AS(TEAM))).status).toBe(200);
    // The fourth within the minute waits in the team's queue until maxWaitMs and is refused.
    const fourth = await chat(b.url, 'bn/m', AS(TEAM));
    expect(fourth.status).toBe(429);
    expect(JSON.stringify(await fourth.json())).toContain('RATE_LIMIT_QUEUE_TIMEOUT');
    expect(fakes.bn.requestCount).toBe(3);
  });

  it('a lease acquired on A refuses a second client on B (429) and a stale generation on B (409)', async () => {
    const first = await lease(a.url, ALICE, { action: 'acquire', ttlMs: 60_000 });
    expect(first.status).toBe(200);
    const held = (await first.json()) as { owner: string; generation: number };
    await until('B mirrors the lease', async () =>
      (await b.state()).leases.some((l) => l.connection === 'ls-1' && l.state === 'ACTIVE'),
    );
    const other = await lease(b.url, BOB, { action: 'acquire' });
    expect(other.status).toBe(429);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe(
      'LEASE_CAPACITY_UNAVAILABLE',
    );
    // The owner acquires again on A: generation 2 fences generation 1 off, on B too.
    const again = await lease(a.url, ALICE, { action: 'acquire', owner: held.owner });
    expect(((await again.json()) as { generation: number }).generation).toBe(held.generation + 1);
    await until('B mirrors generation 2', async () =>
      (await b.state()).leases.some((l) => l.generation === held.generation + 1),
    );
    const stale = await chat(b.url, 'ls/m', {
      ...AS(ALICE),
      'x-breakwater-lease-owner': held.owner,
      'x-breakwater-lease-generation': String(held.generation),
    });
    expect(stale.status).toBe(409);
    expect(JSON.stringify(await stale.json())).toContain('LEASE_GENERATION_STALE');
    const current = await chat(b.url, 'ls/m', {
      ...AS(ALICE),
      'x-breakwater-lease-owner': held.owner,
      'x-breakwater-lease-generation': String(held.generation + 1),
    });
    expect(current.status).toBe(200);
    // Quiet once settled: an adopted lease is not sent back (no echo between the instances).
    const listener = await redis.listen(PREFIX);
    await new Promise((r) => setTimeout(r, 400));
    listener.close();
    expect(listener.heard).toEqual([]);
  });

  it('acquires of one connection racing on both instances: one 200, the rest 429, first time', async () => {
    // Eight clients at once, half on each instance: the team's script grants exactly one,
    // before either instance has heard of the other's lease.
    const clients = [a, b, a, b, a, b, a, b].map((i, n) =>
      lease(i.url, n % 4 < 2 ? CAROL : DAVE, { action: 'acquire', ttlMs: 60_000 }),
    );
    const answers = await Promise.all(clients);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const winner = answers[statuses.indexOf(200)]!;
    const held = (await winner.json()) as { owner: string; generation: number };
    for (const r of answers.filter((x) => x.status === 429)) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await r.json()) as { error: { code: string } };
      expect(body.error.code).toBe('LEASE_CAPACITY_UNAVAILABLE');
    }
    const holders = async (i: TeamInstance) =>
      (await i.state()).leases.filter((l) => l.connection === 'lr-1' && l.state === 'ACTIVE');
    await until('both instances show the one holder', async () => {
      const both = await Promise.all([holders(a), holders(b)]);
      return both.every((h) => h.length === 1 && h[0]!.generation === held.generation);
    });
    // Released on the other instance than it was taken on: free for the next client at once.
    const winnerOnA = statuses.indexOf(200) % 2 === 0;
    const [there, other] = winnerOnA ? [a, b] : [b, a];
    const key = statuses.indexOf(200) % 4 < 2 ? CAROL : DAVE;
    const released = await lease(other.url, key, {
      action: 'release',
      owner: held.owner,
      generation: held.generation,
    });
    expect(released.status).toBe(200);
    await until(
      `${there.name} mirrors the release`,
      async () => (await holders(there)).length === 0,
    );
    const next = await lease(there.url, key === CAROL ? DAVE : CAROL, { action: 'acquire' });
    expect(next.status).toBe(200);
    // The old holder's generation is fenced by the script too: a renew of it is refused.
    const renew = await lease(there.url, key, {
      action: 'renew',
      owner: held.owner,
      generation: held.generation,
    });
    expect(renew.status).toBe(409);
  });

  it("a key's budget holds across instances: the 4th request in a minute is refused on either", async () => {
    // The four requests must fall in one calendar minute (the budget's window).
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
    const on = [a, b, a];
    for (const i of on) expect((await chat(i.url, 'ld/m', AS(CAPPED))).status).toBe(200);
    for (const i of [b, a]) {
      const refused = await chat(i.url, 'ld/m', AS(CAPPED));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-breakwater-budget-limit')).toBe('requestsPerMinute');
      const body = (await refused.json()) as { error: { code: string } };
      expect(body.error.code).toBe('budget_exceeded');
    }
  });

  it("a connection's quota learnt on A shows on B, and a newer one learnt on B reaches A", async () => {
    const limits = (remaining: string) => ({
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-remaining-requests': remaining,
    });
    const quotaOn = async (i: TeamInstance) =>
      (await i.state()).quotas?.find((q) => q.connection === 'qt-1');
    fakes.qt.script({ headers: limits('42') });
    expect((await chat(a.url, 'qt/m', AS(TEAM))).status).toBe(200);
    const took = await until('B has qt-1 quota', async () => (await quotaOn(b)) !== undefined);
    expect(took).toBeLessThan(1_000);
    const learnt = await quotaOn(a);
    expect(learnt?.requests).toMatchObject({ remaining: 42, limit: 100 });
    expect(await quotaOn(b)).toEqual(learnt);
    // B learns a newer one itself; A adopts it, and nothing older comes back to B (no echo).
    fakes.qt.script({ headers: limits('41') });
    expect((await chat(b.url, 'qt/m', AS(TEAM))).status).toBe(200);
    await until(
      'A has the newer quota',
      async () => (await quotaOn(a))?.requests?.remaining === 41,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await quotaOn(b))?.requests?.remaining).toBe(41);
    expect(await quotaOn(a)).toEqual(await quotaOn(b));
  });

  /** Redis goes away, A learns a cooldown meanwhile, Redis comes back: both resynchronise. */
  async function outageAndBack(): Promise<void> {
    const outage = redis.outage!;
    await new Promise((r) => setTimeout(r, 300));
    await outage.stop();
    await until('both degraded', async () =>
      (await Promise.all([a.team(), b.team()])).every((t) => t?.status === 'degraded'),
    );
    // Learnt while Redis is away: kept, and sent once it is back.
    fakes.rs.script({ status: 429, headers: { 'retry-after': '60' } });
    expect((await chat(a.url, 'resync', AS(TEAM))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    await outage.start();
    await until(
      'both connected again',
      async () => (await Promise.all([a.team(), b.team()])).every((t) => t?.status === 'connected'),
      15_000,
    );
    await until('B learnt the cooldown A saw during the outage', async () => {
      const c = (await b.state()).connections.find((x) => x.id === 'rs-1');
      return c?.status === 'unavailable';
    });
  }

  it.skipIf(!forms.outage)(
    'Redis stopped mid-load: no request fails, both degrade, recover and resynchronise',
    async () => {
      let running = true;
      const statuses: number[] = [];
      const worker = async (i: TeamInstance) => {
        while (running) statuses.push((await chat(i.url, 'ld/m', AS(TEAM))).status);
      };
      const load = Promise.all([worker(a), worker(b), worker(a), worker(b)]);
      try {
        await outageAndBack();
      } finally {
        running = false;
        await load;
      }
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // Said once per outage in each log (the dashboard and tray read `team.status`).
      expect(a.run.stderr()).toContain('team state unavailable');
      expect(b.run.stderr()).toContain('team state unavailable');
    },
    40_000,
  );

  it.skipIf(!forms.failover)(
    'the primary killed mid-load: no request fails, health degrades at most meanwhile, and a 429 on A after it still cools the key for B',
    async () => {
      let running = true;
      const statuses: number[] = [];
      const seen = new Set<string>();
      const worker = async (i: TeamInstance) => {
        while (running) {
          statuses.push((await chat(i.url, 'ld/m', AS(TEAM))).status);
          seen.add((await i.team())?.status ?? 'none');
        }
      };
      const load = Promise.all([worker(a), worker(b), worker(a), worker(b)]);
      try {
        await new Promise((r) => setTimeout(r, 300));
        // On a Cluster, the primary of the shard that holds rs-1's record.
        await redis.failover!(clusterLayout(PREFIX).record('health', 'rs-1').key);
        await until(
          'both connected after the failover',
          async () =>
            (await Promise.all([a.team(), b.team()])).every((t) => t?.status === 'connected'),
          20_000,
        );
      } finally {
        running = false;
        await load;
      }
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect([...seen].every((s) => s === 'connected' || s === 'degraded')).toBe(true);
      fakes.rs.script({ status: 429, headers: { 'retry-after': '60' } });
      expect((await chat(a.url, 'resync', AS(TEAM))).status).toBe(200);
      await until('B learnt the cooldown A saw after the failover', async () => {
        const c = (await b.state()).connections.find((x) => x.id === 'rs-1');
        return c?.status === 'unavailable';
      });
    },
    60_000,
  );
}
