import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineEvent, Snapshot } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

/**
 * Providers: `oa` (api_key, two connections, models gpt-a and gpt-b) on the primary fake,
 * `oa2` (one connection) on the backup fake, `agentrouter` (Anthropic format, the id that gets
 * the built-in rules) on the primary. Combo `coder` = oa/gpt-a → oa2/gpt-backup.
 */
function config(primary: FakeUpstream, backup: FakeUpstream) {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai' as const,
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key' as const,
        connections: [
          { id: 'oa-1', apiKey: 'sk-oa-one-0123456789' },
          { id: 'oa-2', apiKey: 'sk-oa-two-0123456789' },
        ],
        models: ['gpt-a', 'gpt-b'],
      },
      {
        id: 'oa2',
        format: 'openai' as const,
        baseUrl: `${backup.url}/v1`,
        authClass: 'api_key' as const,
        connections: [{ id: 'oa2-1', apiKey: 'sk-oa2-one-0123456789' }],
        models: ['gpt-backup'],
      },
      {
        id: 'agentrouter',
        format: 'anthropic' as const,
        baseUrl: primary.url,
        authClass: 'api_key' as const,
        connections: [{ id: 'ar-1', apiKey: 'sk-ar-0123456789' }],
        models: ['claude-ar'],
      },
    ],
    combos: [
      { name: 'coder', strategy: 'priority' as const, targets: ['oa/gpt-a', 'oa2/gpt-backup'] },
    ],
  };
}

let gw: TestGateway;
let openai: OpenAI;
const events: EngineEvent[] = [];
const messages = [{ role: 'user' as const, content: 'hi' }];

beforeAll(async () => {
  // A cut stream is not continued here: these rules are about the stream itself.
  gw = await startGateway({ config, env: { BREAKWATER_STREAM_CONTINUATION: 'false' } });
  gw.engine.onEvent((e) => events.push(e));
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(async () => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
  events.length = 0;
  await gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({
      'modelLockout.enabled': null,
      'breaker.api_key.resetTimeoutMs': null,
      'comboCooldownWait.enabled': false,
    }),
  });
});

async function state(): Promise<Snapshot> {
  return (await (await gw.admin('/api/state')).json()) as Snapshot;
}

function post(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, ...extra }),
  });
}

describe('1. provider circuit breaker', () => {
  it('12 consecutive 503s open an api_key provider; the next request goes to the next target without touching it', async () => {
    gw.primary.setDefault({ status: 503 });
    for (let i = 0; i < 12; i++) {
      const res = await post('oa/gpt-a');
      expect(res.status).toBe(503);
    }
    // Two connections of one provider: each request tried both before answering.
    const breaker = (await state()).breakers.find((b) => b.provider === 'oa')!;
    expect(breaker.state).toBe('OPEN');
    expect(breaker.retryAfterMs).toBeGreaterThan(0);
    expect(breaker.history.map((h) => h.to)).toEqual(['DEGRADED', 'OPEN']);
    const before = gw.primary.requestCount;
    const { data, response } = await openai.chat.completions
      .create({ model: 'coder', messages })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(gw.primary.requestCount).toBe(before);
    expect(response.headers.get('x-breakwater-connection')).toBe('oa2-1');
    expect(response.headers.get('x-breakwater-decision')).toContain(
      'oa/gpt-a@oa-1 skipped (circuit_open)',
    );
    const opened = events.find((e) => e.type === 'breaker.transition' && e.to === 'OPEN');
    expect(opened).toMatchObject({
      provider: 'oa',
      from: 'DEGRADED',
      cause: expect.stringContaining('HTTP 503'),
    });
  });

  it('after the reset time one probe goes through and closes it', async () => {
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'breaker.api_key.resetTimeoutMs': 1000 }),
    });
    gw.primary.setDefault({ status: 503 });
    for (let i = 0; i < 6; i++) await post('oa/gpt-a');
    expect((await state()).breakers.find((b) => b.provider === 'oa')!.state).toBe('OPEN');
    gw.primary.setDefault({});
    await new Promise((r) => setTimeout(r, 1100));
    expect((await state()).breakers.find((b) => b.provider === 'oa')!.state).toBe('HALF_OPEN');
    const before = gw.primary.requestCount;
    expect((await post('oa/gpt-a')).status).toBe(200);
    expect(gw.primary.requestCount).toBe(before + 1);
    const breaker = (await state()).breakers.find((b) => b.provider === 'oa')!;
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.failureCount).toBe(0);
    expect(breaker.history.at(-1)).toMatchObject({
      from: 'HALF_OPEN',
      to: 'CLOSED',
      cause: 'probe succeeded',
    });
  });

  it('POST /api/resilience/reset closes it, and /api/monitoring/health lists every breaker', async () => {
    gw.primary.setDefault({ status: 503 });
    for (let i = 0; i < 6; i++) await post('oa/gpt-a');
    const health = (await (await gw.admin('/api/monitoring/health')).json()) as {
      breakers: Array<{ provider: string; state: string }>;
    };
    expect(health.breakers.map((b) => b.provider).sort()).toEqual(['agentrouter', 'oa', 'oa2']);
    expect(health.breakers.find((b) => b.provider === 'oa')!.state).toBe('OPEN');
    const reset = await gw.admin('/api/resilience/reset', {
      method: 'POST',
      body: JSON.stringify({ provider: 'oa' }),
    });
    expect(await reset.json()).toEqual({ reset: ['oa'] });
    expect((await state()).breakers.find((b) => b.provider === 'oa')!.state).toBe('CLOSED');
    expect(
      (
        await gw.admin('/api/resilience/reset', {
          method: 'POST',
          body: JSON.stringify({ provider: 'ghost' }),
        })
      ).status,
    ).toBe(404);
  });
});

describe('1. windowed provider cooldown (optional)', () => {
  it('skips a provider that failed N times within the window, and shows it', async () => {
    await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({
        'providerCooldown.enabled': true,
        'providerCooldown.api_key.providerFailureThreshold': 2,
        'providerCooldown.api_key.providerCooldownMs': 60_000,
      }),
    });
    try {
      gw.primary.script({ status: 503 }, { status: 503 });
      const first = await post('coder');
      expect(first.headers.get('x-breakwater-connection')).toBe('oa2-1');
      const before = gw.primary.requestCount;
      const next = await post('coder');
      expect(next.headers.get('x-breakwater-decision')).toContain(
        'oa/gpt-a@oa-1 skipped (provider_cooldown)',
      );
      expect(gw.primary.requestCount).toBe(before);
      const breaker = (await state()).breakers.find((b) => b.provider === 'oa')!;
      expect(breaker.state).toBe('CLOSED');
      expect(breaker.cooldownUntil! - Date.now()).toBeGreaterThan(55_000);
      expect(events.find((e) => e.type === 'provider.cooldown')).toMatchObject({ provider: 'oa' });
    } finally {
      await gw.admin('/api/resilience', {
        method: 'PATCH',
        body: JSON.stringify({
          'providerCooldown.enabled': null,
          'providerCooldown.api_key.providerFailureThreshold': null,
          'providerCooldown.api_key.providerCooldownMs': null,
        }),
      });
    }
  });
});

describe('2. connection cooldown', () => {
  it('a 429 with Retry-After: 7 cools exactly that connection for ~7 s while the second connection keeps serving', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '7' } });
    const first = await post('oa/gpt-a');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-breakwater-connection')).toBe('oa-2');
    const s = await state();
    const one = s.connections.find((c) => c.id === 'oa-1')!;
    const two = s.connections.find((c) => c.id === 'oa-2')!;
    expect(one.status).toBe('unavailable');
    expect(one.rateLimitedUntil! - s.at).toBeGreaterThan(6000);
    expect(one.rateLimitedUntil! - s.at).toBeLessThanOrEqual(7000);
    expect(one.backoffLevel).toBe(1);
    expect(two.status).toBe('active');
    const next = await post('oa/gpt-a');
    expect(next.headers.get('x-breakwater-connection')).toBe('oa-2');
    expect(next.headers.get('x-breakwater-decision')).toContain(
      'oa/gpt-a@oa-1 skipped (unavailable)',
    );
    expect(events.find((e) => e.type === 'connection.cooldown')).toMatchObject({
      connection: 'oa-1',
      status: 'unavailable',
    });
    // The breaker does not count account-level errors.
    expect(s.breakers.find((b) => b.provider === 'oa')!.failureCount).toBe(0);
  });

  it('POST /api/resilience/connections clears a cooldown', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '60' } });
    await post('oa/gpt-a');
    const list = (await (await gw.admin('/api/resilience/connections')).json()) as Array<{
      id: string;
      status: string;
    }>;
    expect(list.find((c) => c.id === 'oa-1')!.status).toBe('unavailable');
    const res = await gw.admin('/api/resilience/connections', {
      method: 'POST',
      body: JSON.stringify({ connection: 'oa-1' }),
    });
    expect(res.status).toBe(200);
    expect((await state()).connections.find((c) => c.id === 'oa-1')!.status).toBe('active');
    expect(events.some((e) => e.type === 'connection.recovered' && e.connection === 'oa-1')).toBe(
      true,
    );
  });

  it('a ban signal puts the connection in a terminal state that a later cooldown never replaces', async () => {
    gw.primary.script({
      status: 403,
      body: { error: { message: 'Your account has been suspended', type: 'permission_error' } },
    });
    await post('oa/gpt-a');
    let one = (await state()).connections.find((c) => c.id === 'oa-1')!;
    expect(one.status).toBe('banned');
    expect(events.find((e) => e.type === 'connection.terminal')).toMatchObject({
      connection: 'oa-1',
      status: 'banned',
    });
    // Routing never sends it anything again until an operator clears it.
    await post('oa/gpt-a');
    expect(
      gw.primary.requests.filter((r) => r.headers.authorization === 'Bearer sk-oa-one-0123456789'),
    ).toHaveLength(1);
    one = (await state()).connections.find((c) => c.id === 'oa-1')!;
    expect(one.status).toBe('banned');
  });
});

describe('3. model lockout', () => {
  it('a 404 with lockout enabled locks one model while another model of the same connection still works', async () => {
    await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({ 'modelLockout.enabled': true }),
    });
    gw.primary.script({ status: 404 }, { status: 404 });
    const res = await post('oa/gpt-a');
    expect(res.status).toBe(404);
    const locks = (await (await gw.admin('/api/resilience/model-cooldowns')).json()) as Array<
      Record<string, unknown>
    >;
    expect(locks.map((l) => `${l.connection}/${l.model}/${l.scope}`).sort()).toEqual([
      'oa-1/gpt-a/model',
      'oa-2/gpt-a/model',
    ]);
    expect(locks[0]).toMatchObject({ provider: 'oa', reason: 'model_not_found', failureCount: 1 });
    const before = gw.primary.requestCount;
    expect((await post('oa/gpt-a')).status).toBe(503);
    expect(gw.primary.requestCount).toBe(before);
    const other = await post('oa/gpt-b');
    expect(other.status).toBe(200);
    expect((await state()).connections.every((c) => c.status === 'active')).toBe(true);
    // DELETE re-enables it.
    const del = await gw.admin('/api/resilience/model-cooldowns', {
      method: 'DELETE',
      body: JSON.stringify({ provider: 'oa', connection: 'oa-1', model: 'gpt-a' }),
    });
    expect(del.status).toBe(200);
    expect((await post('oa/gpt-a')).headers.get('x-breakwater-connection')).toBe('oa-1');
  });

  it('rejects invalid lockout settings and saves nothing', async () => {
    const res = await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({
        'modelLockout.enabled': true,
        'modelLockout.maxCooldownMs': 1000,
        'modelLockout.baseCooldownMs': 5000,
      }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ field: 'modelLockout.maxCooldownMs' });
    const settings = (await (await gw.admin('/api/resilience')).json()) as Array<{
      key: string;
      value: unknown;
    }>;
    expect(settings.find((s) => s.key === 'modelLockout.enabled')!.value).toBe(false);
    const notResilience = await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({ 'timeouts.idleMs': 5000 }),
    });
    expect(notResilience.status).toBe(400);
  });
});

describe('7. upstream status restatement and error rules', () => {
  it('a 403 额度不足 body from agentrouter is restated to 429 with Retry-After 60 for the client', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
    gw.primary.script({
      status: 403,
      body: { type: 'error', error: { type: 'permission_error', message: '用户额度不足, 请充值' } },
    });
    const err = await anthropic.messages
      .create({ model: 'agentrouter/claude-ar', max_tokens: 10, messages })
      .then(
        () => ({ status: 200, headers: new Headers() }),
        (e: unknown) => e as { status: number; headers: Headers },
      );
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after')).toBe('60');
    // Built-in rule: quota_exhausted with scope connection cools the connection.
    const ar = (await state()).connections.find((c) => c.id === 'ar-1')!;
    expect(ar.status).toBe('unavailable');
  });

  it('无权访问模型 keeps its 403 and locks only that model for 6 h (capped by maxCooldownMs)', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
    gw.primary.script({
      status: 403,
      body: {
        type: 'error',
        error: { type: 'permission_error', message: '无权访问模型 claude-ar' },
      },
    });
    const err = await anthropic.messages
      .create({ model: 'agentrouter/claude-ar', max_tokens: 10, messages })
      .then(
        () => ({ status: 200 }),
        (e: unknown) => e as { status: number },
      );
    expect(err.status).toBe(403);
    const s = await state();
    expect(s.connections.find((c) => c.id === 'ar-1')!.status).toBe('active');
    const lock = s.lockouts.find((l) => l.connection === 'ar-1')!;
    expect(lock).toMatchObject({ model: 'claude-ar', scope: 'model', reason: 'auth_error' });
    // 6 h declared, capped by the default maxCooldownMs of 30 min.
    expect(lock.expiresAt - s.at).toBeGreaterThan(29 * 60_000);
    expect(lock.expiresAt - s.at).toBeLessThanOrEqual(30 * 60_000);
    await gw.admin('/api/resilience/model-cooldowns', {
      method: 'DELETE',
      body: JSON.stringify({ provider: 'agentrouter', connection: 'ar-1', model: 'claude-ar' }),
    });
  });

  it('an error arriving as the first event of a 200 stream is handled like its status: failover, no bytes relayed', async () => {
    gw.primary.script({ streamError: true });
    const res = await post('coder', { stream: true });
    expect(res.status).toBe(200);
    // The next candidate: the same target on the provider's second connection.
    expect(res.headers.get('x-breakwater-connection')).toBe('oa-2');
    expect(res.headers.get('x-breakwater-decision')).toContain(
      'oa/gpt-a@oa-1 failed (error event opening a 200 stream, as 500, server_error)',
    );
    const text = await res.text();
    expect(text).not.toContain('server had an error');
    expect(text).toContain('[DONE]');
    // Counted as a provider failure (then decremented by the success that followed).
    expect(
      events.some(
        (e) => e.type === 'request.completed' && e.entry.decision?.includes('error event opening'),
      ),
    ).toBe(true);
  });

  it('an Anthropic overloaded_error opening a stream is relayed as 529 when nothing else can serve', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
    gw.primary.script({
      streamError: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const err = await anthropic.messages
      .create({ model: 'agentrouter/claude-ar', max_tokens: 5, messages, stream: true })
      .then(
        () => ({ status: 200 }),
        (e: unknown) => e as { status: number },
      );
    expect(err.status).toBe(529);
  });

  it('a plain 400 penalises nobody', async () => {
    gw.primary.script({
      status: 400,
      body: { error: { message: 'bad field', type: 'invalid_request_error' } },
    });
    expect((await post('oa/gpt-a')).status).toBe(400);
    const s = await state();
    expect(s.connections.every((c) => c.status === 'active' && c.backoffLevel === 0)).toBe(true);
    expect(s.lockouts).toHaveLength(0);
  });
});

describe('8. routing: every target cooling', () => {
  it('answers 503 all_targets_cooling_down with clamped Retry-After and diagnostics, without calling any upstream', async () => {
    gw.primary.setDefault({ status: 429, headers: { 'retry-after': '120' } });
    gw.backup.setDefault({ status: 429, headers: { 'retry-after': '30' } });
    expect((await post('coder')).status).toBe(429);
    const before = gw.primary.requestCount + gw.backup.requestCount;
    const res = await post('coder');
    expect(res.status).toBe(503);
    expect(gw.primary.requestCount + gw.backup.requestCount).toBe(before);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    const body = (await res.json()) as {
      error: {
        code: string;
        diagnostics: {
          poolSize: number;
          attempted: number;
          excluded: Array<{ target: string; reason: string; retryAfterMs: number }>;
        };
      };
    };
    expect(body.error.code).toBe('all_targets_cooling_down');
    expect(body.error.diagnostics.poolSize).toBe(3);
    expect(body.error.diagnostics.attempted).toBe(0);
    expect(body.error.diagnostics.excluded.map((e) => `${e.target}:${e.reason}`)).toEqual([
      'oa/gpt-a@oa-1:unavailable',
      'oa/gpt-a@oa-2:unavailable',
      'oa2/gpt-backup@oa2-1:unavailable',
    ]);
    expect(gw.log.lines.some((l) => l.includes('every target of "coder" is cooling down'))).toBe(
      true,
    );
    gw.primary.setDefault({});
    gw.backup.setDefault({});
  });

  it('uses the emergency fallback instead of answering 503', async () => {
    await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({ 'routing.emergencyFallback': 'oa/gpt-b' }),
    });
    try {
      // Every combo target fails (gpt-a on both connections, then the backup).
      gw.primary.script({ status: 503 }, { status: 503 });
      gw.backup.setDefault({ status: 503 });
      const res = await post('coder');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-breakwater-decision')).toContain('emergency fallback oa/gpt-b');
      expect(gw.primary.requests.at(-1)!.body.model).toBe('gpt-b');
      // Switched off at run time: the same failures now end in the last error.
      await gw.admin('/api/resilience', {
        method: 'PATCH',
        body: JSON.stringify({ 'routing.emergencyFallbackEnabled': false }),
      });
      gw.primary.script({ status: 503 }, { status: 503 });
      expect((await post('coder')).status).toBe(503);
    } finally {
      gw.backup.setDefault({});
      await gw.admin('/api/resilience', {
        method: 'PATCH',
        body: JSON.stringify({
          'routing.emergencyFallback': null,
          'routing.emergencyFallbackEnabled': null,
        }),
      });
    }
  });

  it('records the egress address per connection in the request log', async () => {
    await post('oa/gpt-a');
    await eventually(async () => {
      const rows = (await (await gw.admin('/api/logs?limit=1')).json()) as Array<{
        egressIp: string | null;
      }>;
      return rows[0]?.egressIp === '127.0.0.1';
    });
  });
});

describe('persistence', () => {
  it('a restart preserves breaker, cooldown and lockout state', async () => {
    gw.primary.setDefault({ status: 503 });
    for (let i = 0; i < 6; i++) await post('oa/gpt-a');
    gw.primary.setDefault({});
    // With lockout off a 429 cools the connection; with it on it would lock the model.
    gw.backup.script({ status: 429, headers: { 'retry-after': '300' } });
    await post('oa2/gpt-backup');
    await gw.admin('/api/resilience', {
      method: 'PATCH',
      body: JSON.stringify({ 'modelLockout.enabled': true }),
    });
    gw.primary.script({ status: 404 });
    await gw.admin('/api/resilience/reset', {
      method: 'POST',
      body: JSON.stringify({ provider: 'agentrouter' }),
    });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
    await anthropic.messages
      .create({ model: 'agentrouter/claude-ar', max_tokens: 5, messages })
      .catch(() => null);
    const before = await state();
    expect(before.breakers.find((b) => b.provider === 'oa')!.state).toBe('OPEN');
    expect(before.connections.find((c) => c.id === 'oa2-1')!.status).toBe('unavailable');
    expect(before.lockouts.some((l) => l.connection === 'ar-1')).toBe(true);

    await gw.restart();
    const after = await state();
    const breaker = after.breakers.find((b) => b.provider === 'oa')!;
    expect(breaker.state).toBe('OPEN');
    expect(breaker.history).toEqual(before.breakers.find((b) => b.provider === 'oa')!.history);
    expect(after.connections.find((c) => c.id === 'oa2-1')).toMatchObject({
      status: 'unavailable',
      rateLimitedUntil: before.connections.find((c) => c.id === 'oa2-1')!.rateLimitedUntil,
    });
    expect(after.lockouts).toEqual(before.lockouts);
  });
});
