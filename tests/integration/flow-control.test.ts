import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionConfig, EngineEvent, Snapshot } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';

function provider(id: string, url: string, connections: ConnectionConfig[], models: string[]) {
  return {
    id,
    format: 'openai' as const,
    baseUrl: `${url}/v1`,
    authClass: 'api_key' as const,
    connections,
    models,
  };
}

function config(primary: FakeUpstream) {
  return {
    providers: [
      provider(
        'qd',
        primary.url,
        [
          {
            id: 'qd-1',
            apiKey: 'sk-qd-0123456789',
            rateLimit: { concurrency: 1 },
            rateLimitOverrides: { maxQueueDepth: 2 },
          },
        ],
        ['m-depth'],
      ),
      provider(
        'qt',
        primary.url,
        [
          {
            id: 'qt-1',
            apiKey: 'sk-qt-0123456789',
            rateLimit: { concurrency: 1 },
            rateLimitOverrides: { maxWaitMs: 300 },
          },
        ],
        ['m-wait'],
      ),
      provider(
        'mc',
        primary.url,
        [{ id: 'mc-1', apiKey: 'sk-mc-0123456789', maxConcurrent: 1 }],
        ['m-conc'],
      ),
      provider(
        'af',
        primary.url,
        [
          { id: 'af-1', apiKey: 'sk-af-one-0123456789' },
          { id: 'af-2', apiKey: 'sk-af-two-0123456789' },
        ],
        ['m-aff'],
      ),
    ],
  };
}

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway({ config });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
  events.length = 0;
});

function post(
  model: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

async function state(): Promise<Snapshot> {
  return (await (await gw.admin('/api/state')).json()) as Snapshot;
}

describe('5. request-queue admission', () => {
  it('with maxQueueDepth 2 and a slow upstream, the fourth concurrent request is refused at once and never reaches the upstream', async () => {
    gw.primary.setDefault({ delayMs: 600 });
    const first = post('m-depth');
    await gw.primary.waitForRequests(1);
    const queued = [post('m-depth'), post('m-depth')];
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const fourth = await post('m-depth');
    expect(Date.now() - started).toBeLessThan(300);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await fourth.json()) as { error: { code: string } }).error.code).toBe(
      'RATE_LIMIT_QUEUE_FULL',
    );
    const all = await Promise.all([first, ...queued]);
    expect(all.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(gw.primary.requestCount).toBe(3);
    expect(
      events.some((e) => e.type === 'queue.rejected' && e.code === 'RATE_LIMIT_QUEUE_FULL'),
    ).toBe(true);
    const q = (await state()).queues.find((x) => x.connection === 'qd-1')!;
    expect(q).toMatchObject({ running: 0, queued: 0, rejected: 1 });
    gw.primary.setDefault({});
  });

  it('a queued request over maxWaitMs gets RATE_LIMIT_QUEUE_TIMEOUT and never reaches the upstream; the running one is not killed', async () => {
    gw.primary.setDefault({ delayMs: 900 });
    const long = post('m-wait');
    await gw.primary.waitForRequests(1);
    const started = Date.now();
    const waiting = await post('m-wait');
    const waitedMs = Date.now() - started;
    expect(waiting.status).toBe(429);
    expect(((await waiting.json()) as { error: { code: string } }).error.code).toBe(
      'RATE_LIMIT_QUEUE_TIMEOUT',
    );
    expect(waitedMs).toBeGreaterThanOrEqual(250);
    expect(waitedMs).toBeLessThan(850);
    expect((await long).status).toBe(200);
    expect(gw.primary.requestCount).toBe(1);
    gw.primary.setDefault({});
  });
});

describe('4. per-connection concurrency', () => {
  it('maxConcurrent: 1 serialises requests to one connection', async () => {
    gw.primary.setDefault({ delayMs: 200 });
    const started = Date.now();
    const results = await Promise.all([post('m-conc'), post('m-conc'), post('m-conc')]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    // One at a time: the three upstream calls never overlap.
    const at = gw.primary.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(180);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(180);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect((await state()).connections.find((c) => c.id === 'mc-1')!.inFlight).toBe(0);
    gw.primary.setDefault({});
  });
});

describe('9. session affinity', () => {
  it('keeps a session on one connection across requests and moves it when that connection cools', async () => {
    // Without a session both connections would be used in priority order (af-1 first).
    const session = { 'x-claude-code-session-id': 'sess-123' };
    await gw.admin('/api/resilience/connections', {
      method: 'POST',
      body: JSON.stringify({ connection: 'af-1' }),
    });
    // Pin the session to af-2 by making af-1 fail once.
    gw.primary.script({ status: 429, headers: { 'retry-after': '1' } });
    const first = await post('m-aff', session);
    expect(first.headers.get('x-breakwater-connection')).toBe('af-2');
    // af-1 is healthy again, yet the session stays on af-2.
    gw.resetResilience();
    for (let i = 0; i < 3; i++) {
      const res = await post('m-aff', session);
      expect(res.headers.get('x-breakwater-connection')).toBe('af-2');
      expect(res.headers.get('x-breakwater-decision')).toContain('session pinned to af-2');
    }
    // A request without the session goes to af-1 (priority).
    expect((await post('m-aff')).headers.get('x-breakwater-connection')).toBe('af-1');
    // af-2 cools: the session moves to af-1 and is re-pinned there.
    gw.primary.script({ status: 429, headers: { 'retry-after': '120' } });
    const moved = await post('m-aff', session);
    expect(moved.headers.get('x-breakwater-connection')).toBe('af-1');
    gw.resetResilience();
    expect((await post('m-aff', session)).headers.get('x-breakwater-connection')).toBe('af-1');
    const sessions = (await state()).sessions;
    expect(sessions.find((s) => s.session === 'sess-123')).toMatchObject({ connection: 'af-1' });
    // The session header never reaches the upstream.
    expect(
      gw.primary.requests.every((r) => r.headers['x-claude-code-session-id'] === undefined),
    ).toBe(true);
  });

  it('keeps pins across a restart', async () => {
    await post('m-aff', { 'x-session-id': 'sess-restart' });
    await gw.restart();
    expect((await state()).sessions.some((s) => s.session === 'sess-restart')).toBe(true);
  });
});

describe('4. cooldown-aware retry (comboCooldownWait)', () => {
  it('waits out a short rate-limit cooldown and dispatches again instead of failing', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '1' } });
    const started = Date.now();
    const res = await post('mc/m-conc');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.headers.get('x-breakwater-decision')).toContain(
      'waited 1 s for a rate-limit cooldown',
    );
  });

  it('never waits for quota exhaustion', async () => {
    gw.primary.script({
      status: 429,
      body: { error: { message: 'You have reached your monthly usage limit', type: 'rate_limit' } },
    });
    const started = Date.now();
    const res = await post('mc/m-conc');
    expect(res.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(800);
  });
});

describe('500 streams through the pipeline', () => {
  it('leave no leaked slots, timers or listeners', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    const run = async (i: number) => {
      const res = await post(
        i % 2 ? 'm-conc' : 'm-aff',
        { 'x-session-id': `s-${i % 7}` },
        { stream: true },
      );
      await res.text();
      return res.status;
    };
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      statuses.push(
        ...(await Promise.all(Array.from({ length: 50 }, (_, j) => run(batch * 50 + j)))),
      );
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    const s = await state();
    expect(s.gateway.inFlight).toBe(0);
    expect(s.connections.every((c) => c.inFlight === 0)).toBe(true);
    expect(s.queues.every((q) => q.running === 0 && q.queued === 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    // Per-request deadlines, queue timers and semaphore waits are all cleared: the only
    // timers left are the long-lived ones (log flush, keep-alive), which existed before.
    expect(timers() - timersBefore).toBeLessThanOrEqual(3);
  }, 60_000);
});
