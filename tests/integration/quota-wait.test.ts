// Issue 29: a request that meets a quota wall waits for a near reset instead of failing, and a
// connection cooled for long by an announced reset is re-probed with one real request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineEvent, Snapshot } from '../../src/shared/contract';
import type { FakeStep } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

const QUOTA_TEXT = 'You have reached your monthly usage limit';

function quota429(resetS: number, format: 'openai' | 'anthropic' = 'openai'): FakeStep {
  const error =
    format === 'anthropic'
      ? { type: 'error', error: { type: 'rate_limit_error', message: QUOTA_TEXT } }
      : { error: { message: QUOTA_TEXT, type: 'rate_limit' } };
  return { status: 429, headers: { 'retry-after': String(resetS) }, body: error };
}

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway({
    env: { BREAKWATER_QUOTA_WAIT_MAX_WAIT_MS: '300000' },
    config: (primary) => ({
      providers: [
        {
          id: 'qa',
          format: 'openai',
          baseUrl: `${primary.url}/v1`,
          authClass: 'api_key',
          connections: [{ id: 'qa-1', apiKey: 'sk-qa-one-0123456789', maxConcurrent: 2 }],
          models: ['gpt-q'],
        },
        {
          id: 'qan',
          format: 'anthropic',
          baseUrl: primary.url,
          authClass: 'api_key',
          connections: [{ id: 'qan-1', apiKey: 'sk-ant-qan-0123456789' }],
          models: ['claude-q'],
        },
      ],
      combos: [],
    }),
  });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());
beforeEach(async () => {
  gw.primary.reset();
  gw.resetResilience();
  events.length = 0;
  await settings({
    'quotaWait.keepAliveMs': 200,
    'cooldown.reprobeAfterMs': null,
    'comboCooldownWait.enabled': false,
    'modelLockout.enabled': null,
    'modelLockout.baseCooldownMs': null,
    'modelLockout.maxCooldownMs': null,
  });
});

async function settings(values: Record<string, unknown>): Promise<void> {
  const res = await gw.admin('/api/settings', { method: 'PATCH', body: JSON.stringify(values) });
  expect(res.status).toBe(200);
}

async function state(): Promise<Snapshot> {
  return (await (await gw.admin('/api/state')).json()) as Snapshot;
}

function chat(stream = false, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'qa/gpt-q',
      stream,
      messages: [{ role: 'user', content: 'hi' }],
    }),
    ...(signal ? { signal } : {}),
  });
}

/** Reads a streamed body whole, noting the longest silence between two chunks (head first). */
async function readTimed(res: Response, sentAt: number): Promise<{ text: string; gap: number }> {
  const reader = res.body!.getReader();
  let last = sentAt;
  let gap = Date.now() - sentAt;
  let text = '';
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    const now = Date.now();
    gap = Math.max(gap, now - last);
    last = now;
    if (done) return { text, gap };
    text += decoder.decode(value, { stream: true });
  }
}

describe('waiting for a near quota reset', () => {
  it('holds a streaming Anthropic client with ping events at most 15 s apart until a 20 s reset, then serves it', async () => {
    await settings({ 'quotaWait.keepAliveMs': null });
    gw.primary.script(quota429(20, 'anthropic'));
    const sentAt = Date.now();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qan/claude-q',
        max_tokens: 10,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(Date.now() - sentAt).toBeLessThan(2_000);
    expect(res.headers.get('x-breakwater-decision')).toContain("waiting for qan-1's quota reset");
    const { text, gap } = await readTimed(res, sentAt);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(19_000);
    expect(gap).toBeLessThanOrEqual(15_500);
    expect(text.match(/event: ping/g)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toContain('event: message_stop');
    expect(gw.primary.requestCount).toBe(2);
  }, 29_000);

  it('holds a streaming Chat client with SSE comments and serves it after the reset', async () => {
    gw.primary.script(quota429(2));
    const sentAt = Date.now();
    const res = await chat(true);
    expect(res.status).toBe(200);
    const { text, gap } = await readTimed(res, sentAt);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_900);
    expect(gap).toBeLessThan(1_000);
    expect(text).toContain(': keep-alive');
    expect(text).toContain('data: [DONE]');
  });

  it('holds a streaming Responses client with SSE comments and serves it after the reset', async () => {
    gw.primary.script(quota429(2));
    const sentAt = Date.now();
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qa/gpt-q', stream: true, input: 'hi' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const { text, gap } = await readTimed(res, sentAt);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_900);
    expect(gap).toBeLessThan(1_000);
    expect(text.indexOf(': keep-alive')).toBeLessThan(text.indexOf('event: response.created'));
    expect(text).toContain('event: response.completed');
    expect(gw.primary.requestCount).toBe(2);
  });

  it('holds a streaming Gemini client with SSE comments and serves it after the reset', async () => {
    gw.primary.script(quota429(2));
    const sentAt = Date.now();
    const res = await fetch(`${gw.url}/v1beta/models/gpt-q:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(200);
    const { text, gap } = await readTimed(res, sentAt);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_900);
    expect(gap).toBeLessThan(1_000);
    expect(text).toContain(': keep-alive');
    // Gemini's stream ends with a chunk naming the finish reason.
    expect(text).toMatch(/"finishReason":"STOP"/);
    expect(gw.primary.requestCount).toBe(2);
  });

  it('ends a waiting stream with an in-stream error when the wait ends in failure', async () => {
    gw.primary.script(quota429(1), { status: 401, body: { error: { message: 'bad key' } } });
    const res = await chat(true);
    expect(res.status).toBe(200);
    const { text } = await readTimed(res, Date.now());
    expect(text).toContain(': keep-alive');
    expect(text).toMatch(/data: \{"error":\{"message":"[^"]*bad key/);
  });

  it('holds a non-streaming client and says in the decision header that it waited', async () => {
    gw.primary.script(quota429(1));
    const started = Date.now();
    const res = await chat();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.headers.get('x-breakwater-decision')).toContain("waited 1 s for qa-1's quota reset");
    expect(gw.log.lines.some((l) => l.includes("waited 1 s for qa-1's quota reset"))).toBe(true);
  });

  it('refuses a reset an hour away at once, with the real Retry-After', async () => {
    gw.primary.script(quota429(3600));
    const started = Date.now();
    const held = await chat();
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(3590);
    // Nothing is tried now: every target is out until the reset, and that is what it says.
    const refused = await chat();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(3590);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(gw.primary.requestCount).toBe(1);
  });

  it('lists a waiting request in /api/state; one whose client aborts is gone at once and never called upstream', async () => {
    gw.primary.script(quota429(3));
    const first = chat();
    await eventually(async () => (await state()).quotaWaits?.length === 1);
    const abort = new AbortController();
    const second = chat(false, abort.signal).catch(() => null);
    await eventually(async () => (await state()).quotaWaits?.length === 2);
    const waits = (await state()).quotaWaits!;
    expect(waits[0]).toMatchObject({
      model: 'qa/gpt-q',
      reason: 'quota_exhausted',
      subject: 'qa-1',
    });
    expect(waits[0]!.until - waits[0]!.since).toBeGreaterThan(2_000);
    abort.abort();
    const abortedAt = Date.now();
    await eventually(async () => (await state()).quotaWaits?.length === 1, 1_000);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    await second;
    expect((await first).status).toBe(200);
    // The 429 and the first request's own dispatch after the reset; none for the aborted one.
    expect(gw.primary.requestCount).toBe(2);
    expect((await state()).quotaWaits).toEqual([]);
  });

  it('releases 50 requests waiting on one reset without a herd, and serves them all', async () => {
    gw.primary.setDefault({ delayMs: 30 });
    gw.primary.script(quota429(1));
    const first = chat();
    await gw.primary.waitForRequests(1);
    const rest = Array.from({ length: 49 }, () => chat());
    await eventually(async () => (await state()).quotaWaits?.length === 50);
    const statuses = await Promise.all([first, ...rest].map(async (r) => (await r).status));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.primary.requestCount).toBe(51);
    expect(gw.primary.peakInFlight).toBeLessThanOrEqual(2);
  }, 20_000);
});

describe('re-probing a long cooldown', () => {
  it('lets exactly one request through as a probe once cooldown.reprobeAfterMs passed, and a success ends the cooldown', async () => {
    await settings({ 'cooldown.reprobeAfterMs': 600 });
    gw.primary.script(quota429(86_400));
    expect((await chat()).status).toBe(429);
    const cooled = await chat();
    expect(cooled.status).toBe(503);
    expect(Number(cooled.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect(gw.primary.requestCount).toBe(1);
    await new Promise((r) => setTimeout(r, 700));
    // The fake recovered; two requests at once: one is the probe, the other still sees the cooldown.
    gw.primary.setDefault({ delayMs: 200 });
    const statuses = (await Promise.all([chat(), chat()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 503]);
    expect(gw.primary.requestCount).toBe(2);
    const conn = (await state()).connections.find((c) => c.id === 'qa-1')!;
    expect(conn.status).toBe('active');
    expect(
      events.find((e) => e.type === 'connection.recovered' && e.connection === 'qa-1'),
    ).toMatchObject({ cause: expect.stringContaining('re-probe succeeded') });
    expect((await chat()).status).toBe(200);
  });

  it('a failed probe keeps the announced end and waits the interval again', async () => {
    await settings({ 'cooldown.reprobeAfterMs': 500 });
    gw.primary.script(quota429(86_400));
    await chat();
    const until = (await state()).connections.find((c) => c.id === 'qa-1')!.rateLimitedUntil!;
    await new Promise((r) => setTimeout(r, 600));
    gw.primary.script(quota429(86_400));
    expect((await chat()).status).toBe(429);
    expect(gw.primary.requestCount).toBe(2);
    // The interval started again: no probe now.
    expect((await chat()).status).toBe(503);
    expect(gw.primary.requestCount).toBe(2);
    const after = (await state()).connections.find((c) => c.id === 'qa-1')!;
    expect(after.status).toBe('unavailable');
    expect(after.rateLimitedUntil!).toBeGreaterThanOrEqual(until);
  });
});

describe('re-probing a long model lockout', () => {
  const DAY = 86_400_000;
  const lockForADay = (interval: number) =>
    settings({
      'cooldown.reprobeAfterMs': interval,
      'modelLockout.enabled': true,
      'modelLockout.baseCooldownMs': DAY,
      'modelLockout.maxCooldownMs': DAY,
    });
  const lockouts = async () =>
    (await (await gw.admin('/api/resilience/model-cooldowns')).json()) as Array<{
      model: string;
      expiresAt: number;
    }>;

  it('lets exactly one request through once the interval passed, and its success ends the lock with the cause', async () => {
    await lockForADay(600);
    gw.primary.script({ status: 404 });
    expect((await chat()).status).toBe(404);
    const locked = await chat();
    expect(locked.status).toBe(503);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(86_000);
    expect(gw.primary.requestCount).toBe(1);
    await new Promise((r) => setTimeout(r, 700));
    gw.primary.setDefault({ delayMs: 200 });
    const statuses = (await Promise.all([chat(), chat()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 503]);
    expect(gw.primary.requestCount).toBe(2);
    expect(await lockouts()).toEqual([]);
    expect(events.find((e) => e.type === 'lockout.cleared')).toMatchObject({
      cause: expect.stringContaining('re-probe succeeded ahead of the announced end'),
    });
    expect((await chat()).status).toBe(200);
  });

  it('a failed probe keeps the announced end and waits the interval again', async () => {
    await lockForADay(500);
    gw.primary.script({ status: 404 });
    await chat();
    const [lock] = await lockouts();
    await new Promise((r) => setTimeout(r, 600));
    gw.primary.script({ status: 404 });
    expect((await chat()).status).toBe(404);
    expect(gw.primary.requestCount).toBe(2);
    expect((await chat()).status).toBe(503);
    expect(gw.primary.requestCount).toBe(2);
    const [after] = await lockouts();
    expect(after!.expiresAt).toBeGreaterThanOrEqual(lock!.expiresAt);
    expect(events.some((e) => e.type === 'lockout.cleared')).toBe(false);
  });

  it('lets nothing through before the interval has passed', async () => {
    await lockForADay(60_000);
    gw.primary.script({ status: 404 });
    await chat();
    await new Promise((r) => setTimeout(r, 600));
    expect((await chat()).status).toBe(503);
    expect(gw.primary.requestCount).toBe(1);
  });
});
