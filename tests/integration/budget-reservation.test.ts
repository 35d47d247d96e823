// Budget reservation as a handle, through the gateway: a request of a key with token or USD
// limits holds its estimate (input plus max_tokens, priced) until its answer ends, so requests
// in flight together cannot jointly overshoot; a refused one never reaches the upstream, and an
// aborted one gives its hold back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  BreakwaterConfig,
  CreatedGatewayKey,
  GatewayKeyView,
} from '../../src/shared/contract';
import { standardConfig, startGateway, type TestGateway } from '../support/gateway';

function config(...args: Parameters<typeof standardConfig>): BreakwaterConfig {
  const base = standardConfig(...args);
  // 10 USD per million tokens each way: 1 000 tokens cost 0.01 USD.
  base.providers!.find((p) => p.id === 'oa')!.models = [
    { id: 'gpt-test', price: { input: 10, output: 10 } },
  ];
  return base;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config });
});
afterAll(() => gw.close());
beforeEach(() => gw.primary.reset());

async function createKey(name: string, limits: Record<string, number>): Promise<string> {
  const res = await gw.admin('/api/keys', {
    method: 'POST',
    body: JSON.stringify({ name, limits }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as CreatedGatewayKey).key;
}

function chat(key: string, maxTokens: number, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'oa/gpt-test',
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: 'hi' }],
    }),
    ...(signal ? { signal } : {}),
  });
}

async function spend(name: string) {
  const keys = (await (await gw.admin('/api/keys')).json()) as GatewayKeyView[];
  return keys.find((k) => k.name === name)!.spend;
}

describe('budget reservation', () => {
  it('N concurrent requests against tokensPerDay: only as many as fit reach the upstream', async () => {
    // Each asks for ~10 input + 100 output tokens: three fit in 350, six do not.
    const key = await createKey('tpd-burst', { tokensPerDay: 350 });
    gw.primary.setDefault({ delayMs: 300, usage: { input: 10, output: 20 } });
    const answers = await Promise.all(Array.from({ length: 6 }, () => chat(key, 100)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(gw.primary.requestCount).toBe(3);
    const refused = answers.find((r) => r.status === 429)!;
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('budget_exceeded');
    expect(body.error.message).toContain('requests in flight hold what is left');
    expect(refused.headers.get('retry-after')).toBe('1');
    // Settled to what was used (3 × 30), not what was held: the next ones fit again.
    expect((await spend('tpd-burst')).tokensToday).toBe(90);
    expect((await chat(key, 100)).status).toBe(200);
  });

  it('N concurrent requests against usdPerDay: priced estimates, same bound', async () => {
    // ~110 tokens at 10 USD/M ≈ 0.0011 USD each: two fit in 0.0025 USD.
    const key = await createKey('usd-burst', { usdPerDay: 0.0025 });
    gw.primary.setDefault({ delayMs: 300, usage: { input: 10, output: 10 } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat(key, 100)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(2);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(3);
    expect(gw.primary.requestCount).toBe(2);
    expect((await spend('usd-burst')).usdToday).toBeCloseTo(0.0004, 10);
  });

  it('a request whose estimate alone does not fit is refused until the window resets', async () => {
    const key = await createKey('too-big', { tokensPerDay: 1000 });
    const res = await chat(key, 5000);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(1);
    expect(gw.primary.requestCount).toBe(0);
  });

  it('aborted requests give their reservation back', async () => {
    const key = await createKey('aborted', { tokensPerDay: 350 });
    gw.primary.setDefault({ stallAfterChunks: 0 });
    const controllers = Array.from({ length: 3 }, () => new AbortController());
    const pending = controllers.map((c) => chat(key, 100, c.signal).catch(() => null));
    await gw.primary.waitForRequests(3);
    // The budget is held in full by the three stalled requests.
    expect((await chat(key, 100)).status).toBe(429);
    for (const c of controllers) c.abort();
    await Promise.all(pending);
    for (let i = 0; i < 3; i++) await gw.primary.waitForAbort();
    gw.primary.setDefault({ usage: { input: 10, output: 20 } });
    await expect.poll(async () => (await chat(key, 100)).status, { timeout: 3000 }).toBe(200);
  });
});
