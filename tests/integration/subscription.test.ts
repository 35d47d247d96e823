import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionConfig, ProviderView, Snapshot } from '../../src/shared/contract';
import { type FakeUpstream, unifiedHeaders } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';

/**
 * RESILIENCE.md §2, "Anthropic subscription accounts", through the running gateway against the
 * fake Anthropic upstream. One Anthropic-format oauth provider per scenario (all on the primary
 * fake), so each scenario's lane state is its own: `<scenario>-1` has the options under test,
 * `<scenario>-2` (where present) is a plain connection that failover would reach.
 */
const ORG = '3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b';
const SLOW = 'anthropic-usage-limit';
const MODEL = 'claude-sub';

function config(primary: FakeUpstream) {
  const provider = (id: string, connections: ConnectionConfig[]) => ({
    id,
    format: 'anthropic' as const,
    baseUrl: primary.url,
    authClass: 'oauth' as const,
    connections: connections.map((c) => ({ apiKey: `sk-ant-oat-${c.id}-0123456789`, ...c })),
    models: [MODEL],
  });
  return {
    providers: [
      provider('lane', [{ id: 'lane-1', lowPriorityMode: true }, { id: 'lane-2' }]),
      provider('busy', [{ id: 'busy-1', lowPriorityMode: true }]),
      provider('weekly', [{ id: 'weekly-1', lowPriorityMode: true }, { id: 'weekly-2' }]),
      provider('plain', [{ id: 'plain-1', lowPriorityMode: true }, { id: 'plain-2' }]),
      provider('reset', [
        { id: 'reset-1', lowPriorityMode: true, autoLimitReset: true, organizationUUID: ORG },
      ]),
      provider('failing', [
        { id: 'failing-1', lowPriorityMode: true, autoLimitReset: true, organizationUUID: ORG },
      ]),
    ],
  };
}

/** Real time plus an offset the tests move forward (the engine reads only this clock). */
let offset = 0;
const clock = { now: () => Date.now() + offset };
let gw: TestGateway;

beforeAll(async () => {
  // random 0: every lane wait is the low end of its jitter (0.7 × the clamped retry-after).
  gw = await startGateway({ config: (p) => config(p), clock, random: () => 0 });
  const set = await gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({ 'subscription.anthropicApiBase': gw.primary.url }),
  });
  expect(set.status).toBe(200);
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
});

function ask(provider: string) {
  return fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: `${provider}/${MODEL}`,
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
}

async function state(): Promise<Snapshot> {
  return (await (await gw.admin('/api/state')).json()) as Snapshot;
}

/** The 5-hour limit 429 of an eligible account; its window resets in an hour (epoch seconds). */
function limit429(extra: Parameters<typeof unifiedHeaders>[0] = {}) {
  const reset = Math.floor(clock.now() / 1000) + 3600;
  return {
    status: 429,
    headers: unifiedHeaders({ status: 'rejected', reset, slowOffer: 'treatment', ...extra }),
  };
}

const messageCalls = () => gw.primary.requests.filter((r) => r.path.startsWith('/v1/messages'));
const connectionOf = (auth: unknown) =>
  String(auth).replace(/^Bearer sk-ant-oat-|-0123456789$/g, '');

describe('§2 options: validated, stored, visible without secrets', () => {
  it('the connection view shows the three options', async () => {
    const providers = (await (await gw.admin('/api/providers')).json()) as ProviderView[];
    const reset = providers.find((p) => p.id === 'reset')!.connections[0]!;
    expect(reset).toMatchObject({
      lowPriorityMode: true,
      autoLimitReset: true,
      organizationUUID: ORG,
      hasSecret: true,
    });
    expect(JSON.stringify(providers)).not.toContain('sk-ant-oat-');
    const plain = providers.find((p) => p.id === 'lane')!.connections[1]!;
    expect(plain).toMatchObject({
      lowPriorityMode: false,
      autoLimitReset: false,
      organizationUUID: null,
    });
  });

  it('autoLimitReset without organizationUUID, a bad UUID, or a non-Anthropic provider is refused', async () => {
    const save = (provider: string, body: unknown) =>
      gw.admin(`/api/providers/${provider}/connections`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
    const noOrg = await save('lane', { id: 'x-1', autoLimitReset: true });
    expect(noOrg.status).toBe(400);
    expect(await noOrg.json()).toMatchObject({ error: { field: 'connection.organizationUUID' } });
    expect((await save('lane', { id: 'x-1', organizationUUID: 'not-a-uuid' })).status).toBe(400);
    const created = await gw.admin('/api/providers', {
      method: 'POST',
      body: JSON.stringify({
        id: 'oa',
        format: 'openai',
        baseUrl: `${gw.primary.url}/v1`,
        models: ['m'],
      }),
    });
    expect(created.status).toBe(201);
    const wrong = await save('oa', { id: 'oa-1', lowPriorityMode: true });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: { field: 'connection.lowPriorityMode' } });
    expect((await gw.admin('/api/providers/oa', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('§2 low-priority lane', () => {
  it('a limit 429 with the slow offer is retried once on the same connection with the slow header; 200, no cooldown', async () => {
    gw.primary.script(limit429(), {});
    const res = await ask('lane');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('lane-1');
    const calls = messageCalls();
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => connectionOf(c.headers.authorization))).toEqual(['lane-1', 'lane-1']);
    expect(calls[0]!.headers[SLOW]).toBeUndefined();
    expect(calls[1]!.headers[SLOW]).toBe('slow');
    const lane1 = (await state()).connections.find((c) => c.id === 'lane-1')!;
    expect(lane1).toMatchObject({
      status: 'active',
      rateLimitedUntil: null,
      backoffLevel: 0,
      lane: 'slow',
    });
    expect(lane1.laneUntil).toBeGreaterThan(Date.now());
    expect(
      gw.log.lines.some((l) =>
        l.includes('lane-1: 5-hour usage limit; low-priority lane accepted'),
      ),
    ).toBe(true);
  });

  it('later requests of that connection carry the slow header from their first attempt', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await ask('lane');
      expect(res.status).toBe(200);
    }
    expect(messageCalls().map((c) => c.headers[SLOW])).toEqual(['slow', 'slow']);
  });

  it('lane state survives a restart (no extra 429 needed)', async () => {
    await gw.restart();
    const res = await ask('lane');
    expect(res.status).toBe(200);
    expect(messageCalls()).toHaveLength(1);
    expect(messageCalls()[0]!.headers[SLOW]).toBe('slow');
  });

  it('the header stops at the announced reset + 60 s', async () => {
    offset += 3600_000 + 60_000 + 1_000;
    const res = await ask('lane');
    expect(res.status).toBe(200);
    expect(messageCalls()[0]!.headers[SLOW]).toBeUndefined();
    expect(gw.log.lines.some((l) => l.includes('lane-1: low-priority lane closed (expired)'))).toBe(
      true,
    );
  });

  it('slot_busy waits the announced slow retry-after (clamped, jittered) and retries', async () => {
    gw.primary.script(
      limit429(),
      {
        status: 429,
        headers: unifiedHeaders({ status: 'rejected', slowStatus: 'slot_busy', slowRetryAfter: 1 }),
      },
      {},
    );
    const res = await ask('busy');
    expect(res.status).toBe(200);
    const calls = messageCalls();
    expect(calls.map((c) => c.headers[SLOW])).toEqual([undefined, 'slow', 'slow']);
    // 1 s is clamped to 5 s; random 0 takes 30 % off: 3.5 s.
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(3_400);
    expect((await state()).connections.find((c) => c.id === 'busy-1')!.status).toBe('active');
  }, 15_000);

  it('weekly_limit closes the lane and the normal cooldown applies', async () => {
    gw.primary.script(
      limit429(),
      {
        status: 429,
        headers: {
          ...unifiedHeaders({ status: 'rejected', slowStatus: 'weekly_limit' }),
          'retry-after': '120',
        },
      },
      {},
    );
    const res = await ask('weekly');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('weekly-2');
    const calls = messageCalls();
    expect(calls.map((c) => connectionOf(c.headers.authorization))).toEqual([
      'weekly-1',
      'weekly-1',
      'weekly-2',
    ]);
    expect(calls.map((c) => c.headers[SLOW])).toEqual([undefined, 'slow', undefined]);
    const weekly1 = (await state()).connections.find((c) => c.id === 'weekly-1')!;
    expect(weekly1.status).toBe('unavailable');
    expect(weekly1.rateLimitedUntil).toBeGreaterThan(clock.now() + 100_000);
    expect(
      gw.log.lines.some((l) => l.includes('weekly-1: low-priority lane closed (weekly_limit)')),
    ).toBe(true);
  });

  it('a 429 without the unified headers goes to the normal cooldown (and nothing is sent)', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '30' } }, {});
    const res = await ask('plain');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('plain-2');
    expect(messageCalls().map((c) => c.headers[SLOW])).toEqual([undefined, undefined]);
    const plain1 = (await state()).connections.find((c) => c.id === 'plain-1')!;
    expect(plain1.status).toBe('unavailable');
    expect(gw.primary.requests.some((r) => r.path.startsWith('/api/'))).toBe(false);
  });
});

describe('§2 limit reset', () => {
  it('tried first: usage, then reset_rate_limits, then a retry at full speed without the slow header', async () => {
    gw.primary.script(limit429(), {});
    const res = await ask('reset');
    expect(res.status).toBe(200);
    const paths = gw.primary.requests.map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual([
      'POST /v1/messages',
      'GET /api/oauth/usage?at_wall=1&skip_spend=1',
      `POST /api/organizations/${ORG}/reset_rate_limits`,
      'POST /v1/messages',
    ]);
    const [, usage, reset, retry] = gw.primary.requests;
    for (const r of [usage!, reset!]) {
      expect(r.headers.authorization).toBe('Bearer sk-ant-oat-reset-1-0123456789');
      expect(r.headers['anthropic-beta']).toBe('oauth-2025-04-20');
    }
    expect(reset!.body).toEqual({ program: 'juniper_tide' });
    expect(retry!.headers[SLOW]).toBeUndefined();
    expect((await state()).connections.find((c) => c.id === 'reset-1')!.status).toBe('active');
  });

  it('a used reset is not tried again that week: the next limit 429 takes the lane', async () => {
    gw.primary.script(limit429(), {});
    const res = await ask('reset');
    expect(res.status).toBe(200);
    expect(gw.primary.requests.some((r) => r.path.startsWith('/api/'))).toBe(false);
    expect(messageCalls().map((c) => c.headers[SLOW])).toEqual([undefined, 'slow']);
  });

  it('a failing endpoint is not tried again for 15 min; the lane serves meanwhile', async () => {
    gw.primary.limitReset.usage = { status: 500, body: { error: 'boom' } };
    gw.primary.script(limit429(), {});
    expect((await ask('failing')).status).toBe(200);
    expect(gw.primary.requests.filter((r) => r.path.startsWith('/api/'))).toHaveLength(1);
    expect(messageCalls().map((c) => c.headers[SLOW])).toEqual([undefined, 'slow']);
    expect(
      gw.log.lines.some((l) =>
        l.includes('failing-1: limit reset failed (GET /api/oauth/usage answered HTTP 500)'),
      ),
    ).toBe(true);
  });
});
