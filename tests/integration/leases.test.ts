import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, EngineEvent, Snapshot } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

/**
 * RESILIENCE.md §10 through the running gateway. Provider `oa` has two connections on the
 * primary fake; combo `pinned` reaches only `oa-1`. Keys: `alpha` may lease oa-1 and oa-2,
 * `beta` only oa-1, `plain` has no lease scope.
 */
const ALPHA = 'bw-alpha-key-0123456789';
const BETA = 'bw-beta-key-0123456789';
const PLAIN = 'bw-plain-key-0123456789';

function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    gateway: {
      apiKeys: [
        {
          name: 'alpha',
          key: ALPHA,
          scopes: ['lease:exclusive'],
          allowedConnections: ['oa-1', 'oa-2'],
        },
        { name: 'beta', key: BETA, scopes: ['lease:exclusive'], allowedConnections: ['oa-1'] },
        { name: 'plain', key: PLAIN },
      ],
    },
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [
          { id: 'oa-1', apiKey: 'sk-oa-one-0123456789' },
          { id: 'oa-2', apiKey: 'sk-oa-two-0123456789' },
        ],
        models: ['gpt-a'],
      },
    ],
    combos: [{ name: 'pinned', strategy: 'priority', targets: ['oa/gpt-a@oa-1'] }],
  };
}

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway({ config });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());
beforeEach(async () => {
  for (const l of (await state()).leases) {
    await gw.admin('/api/leases/release', {
      method: 'POST',
      body: JSON.stringify({ connection: l.connection }),
    });
  }
  gw.primary.reset();
  gw.resetResilience();
  events.length = 0;
});

async function state(): Promise<Snapshot> {
  return (await (await gw.admin('/api/state')).json()) as Snapshot;
}

interface LeaseAnswer {
  owner?: string;
  generation: number;
  connection: string;
  state: string;
  expiresAt: number;
  // biome-ignore lint/suspicious/noExplicitAny: error bodies are checked field by field.
  error?: any;
}

async function lease(
  key: string,
  body: Record<string, unknown>,
  auth: 'bearer' | 'x-api-key' = 'bearer',
): Promise<{ status: number; headers: Headers; body: LeaseAnswer }> {
  const res = await fetch(`${gw.url}/api/v1/session-leases`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(auth === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as LeaseAnswer };
}

function chat(key: string, model: string, managed?: { owner: string; generation: number }) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      ...(managed
        ? {
            'x-breakwater-lease-owner': managed.owner,
            'x-breakwater-lease-generation': String(managed.generation),
          }
        : {}),
    },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('10. exclusive session leases', () => {
  it('acquire answers {owner, generation, connection, state, expiresAt} for a key with the scope, by Bearer or x-api-key', async () => {
    const before = Date.now();
    const a = await lease(ALPHA, { action: 'acquire' }, 'x-api-key');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      owner: expect.stringMatching(/^bwl_[A-Za-z0-9_-]{43}$/),
      generation: 1,
      connection: 'oa-1',
      state: 'ACTIVE',
      expiresAt: expect.any(Number),
    });
    expect(a.body.expiresAt - before).toBeGreaterThanOrEqual(120_000 - 50);
    expect(a.body.expiresAt - Date.now()).toBeLessThanOrEqual(120_000);
    const s = await state();
    expect(s.leases).toEqual([
      { connection: 'oa-1', generation: 1, state: 'ACTIVE', expiresAt: a.body.expiresAt },
    ]);
    expect(events.find((e) => e.type === 'lease.acquired')).toMatchObject({
      lease: { connection: 'oa-1', generation: 1 },
      cause: expect.stringContaining('alpha'),
    });
  });

  it('keys without the scope get 403, the admin token is not a lease key', async () => {
    const plain = await lease(PLAIN, { action: 'acquire' });
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatchObject({
      code: 'lease_scope_required',
      message: expect.stringContaining('lease:exclusive'),
    });
    const admin = await lease(gw.engine.adminToken, { action: 'acquire' });
    expect(admin.status).toBe(401);
    expect(admin.body.error.code).toBe('invalid_api_key');
  });

  it("two managed clients contend for one connection: the loser gets LEASE_CAPACITY_UNAVAILABLE with a Retry-After matching the winner's expiry", async () => {
    const winner = await lease(ALPHA, { action: 'acquire', ttlMs: 90_000 });
    expect(winner.body.connection).toBe('oa-1');
    const loser = await lease(BETA, { action: 'acquire' });
    expect(loser.status).toBe(429);
    const expected = Math.ceil((winner.body.expiresAt - Date.now()) / 1000);
    const retryAfter = Number(loser.headers.get('retry-after'));
    expect(Math.abs(retryAfter - expected)).toBeLessThanOrEqual(1);
    expect(loser.body.error).toMatchObject({
      code: 'LEASE_CAPACITY_UNAVAILABLE',
      state: 'WAITING_FOR_CAPACITY',
    });

    // The same through the proxy: the only eligible connection of `pinned` is leased.
    const res = await chat(BETA, 'pinned');
    expect(res.status).toBe(429);
    expect(Math.abs(Number(res.headers.get('retry-after')) - expected)).toBeLessThanOrEqual(1);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({
      code: 'LEASE_CAPACITY_UNAVAILABLE',
      type: 'rate_limit_error',
      state: 'WAITING_FOR_CAPACITY',
    });
    expect(gw.primary.requestCount).toBe(0);
  });

  it('a stale generation is refused with 409 before any upstream dispatch', async () => {
    const first = await lease(ALPHA, { action: 'acquire' });
    const owner = first.body.owner!;
    const second = await lease(ALPHA, { action: 'acquire', owner });
    expect(second.body).toMatchObject({ owner, generation: 2, connection: 'oa-1' });
    const stale = await chat(ALPHA, 'oa/gpt-a', { owner, generation: 1 });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe(
      'LEASE_GENERATION_STALE',
    );
    expect(gw.primary.requestCount).toBe(0);
    const fresh = await chat(ALPHA, 'oa/gpt-a', { owner, generation: 2 });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-breakwater-connection')).toBe('oa-1');
    expect(fresh.headers.get('x-breakwater-decision')).toContain('lease g2 on oa-1');
    // The fence is bound to the key: the same owner under another key is unknown.
    const foreign = await chat(BETA, 'oa/gpt-a', { owner, generation: 2 });
    expect(foreign.status).toBe(409);
    expect(gw.primary.requestCount).toBe(1);
  });

  it('release frees the connection for the next client', async () => {
    const a = await lease(ALPHA, { action: 'acquire' });
    expect((await lease(BETA, { action: 'acquire' })).status).toBe(429);
    const released = await lease(ALPHA, {
      action: 'release',
      owner: a.body.owner,
      generation: a.body.generation,
    });
    expect(released.body).toMatchObject({ state: 'RELEASED', connection: 'oa-1' });
    expect(released.body.owner).toBeUndefined();
    const b = await lease(BETA, { action: 'acquire' });
    expect(b.status).toBe(200);
    expect(b.body.connection).toBe('oa-1');
    expect(events.filter((e) => e.type === 'lease.ended')).toHaveLength(1);

    // The operator can release it too (dashboard action).
    const op = await gw.admin('/api/leases/release', {
      method: 'POST',
      body: JSON.stringify({ connection: 'oa-1' }),
    });
    expect(op.status).toBe(200);
    expect((await state()).leases).toEqual([]);
    const none = await gw.admin('/api/leases/release', {
      method: 'POST',
      body: JSON.stringify({ connection: 'oa-1' }),
    });
    expect(none.status).toBe(404);
    const status = await lease(BETA, { action: 'status', owner: b.body.owner });
    expect(status.body).toMatchObject({ state: 'RELEASED', generation: 1 });
  });

  it('an unmanaged client is excluded from a leased connection but served by a free one', async () => {
    await lease(ALPHA, { action: 'acquire' });
    const res = await chat(PLAIN, 'oa/gpt-a');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('oa-2');
    expect(res.headers.get('x-breakwater-decision')).toContain('oa/gpt-a@oa-1 skipped (leased)');
    expect(gw.primary.requests[0]?.headers.authorization).toBe('Bearer sk-oa-two-0123456789');
  });

  it('a managed request whose connection cools moves, with the same generation, to a free allowed one', async () => {
    const a = await lease(ALPHA, { action: 'acquire' });
    const managed = { owner: a.body.owner!, generation: 1 };
    // Without the cooldown-aware wait (§4), which would otherwise wait the 30 s out on oa-1.
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'comboCooldownWait.enabled': false }),
    });
    gw.primary.script({ status: 429, headers: { 'retry-after': '30' } });
    const limited = await chat(ALPHA, 'oa/gpt-a', managed);
    expect(limited.status).toBe(429);
    const moved = await chat(ALPHA, 'oa/gpt-a', managed);
    expect(moved.status).toBe(200);
    expect(moved.headers.get('x-breakwater-connection')).toBe('oa-2');
    expect((await state()).leases).toEqual([
      expect.objectContaining({ connection: 'oa-2', generation: 1, state: 'ACTIVE' }),
    ]);
    const again = await chat(ALPHA, 'oa/gpt-a', managed);
    expect(again.headers.get('x-breakwater-connection')).toBe('oa-2');
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'comboCooldownWait.enabled': null }),
    });
  });

  it('lease headers never reach the upstream, the request log, the snapshot or the events', async () => {
    const a = await lease(ALPHA, { action: 'acquire' });
    const owner = a.body.owner!;
    const res = await chat(ALPHA, 'oa/gpt-a', { owner, generation: 1 });
    expect(res.status).toBe(200);
    const sent = gw.primary.requests[0]!;
    expect(Object.keys(sent.headers).filter((h) => h.includes('lease'))).toEqual([]);
    expect(JSON.stringify(sent)).not.toContain(owner);
    let logs = '';
    await eventually(async () => {
      logs = await (await gw.admin('/api/logs?limit=50')).text();
      return logs.includes('oa-1');
    });
    expect(logs).not.toContain(owner);
    expect(logs.toLowerCase()).not.toContain('x-breakwater-lease');
    const snapshot = JSON.stringify(await state());
    expect(snapshot).not.toContain(owner);
    expect(snapshot).not.toContain('owner');
    expect(JSON.stringify(events)).not.toContain(owner);
    expect(gw.log.lines.join('\n')).not.toContain(owner);
  });

  it('restart keeps active leases', async () => {
    const a = await lease(ALPHA, { action: 'acquire' });
    await gw.restart(config(gw.primary));
    gw.engine.onEvent((e) => events.push(e));
    expect((await state()).leases).toEqual([
      { connection: 'oa-1', generation: 1, state: 'ACTIVE', expiresAt: a.body.expiresAt },
    ]);
    const res = await chat(ALPHA, 'oa/gpt-a', { owner: a.body.owner!, generation: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('oa-1');
    expect((await lease(BETA, { action: 'acquire' })).status).toBe(429);
  });
});
