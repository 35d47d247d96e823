import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  BreakwaterConfig,
  CreatedGatewayKey,
  EngineEvent,
  GatewayKeyView,
} from '../../src/shared/contract';
import { eventually, standardConfig, startGateway, type TestGateway } from '../support/gateway';

const CONFIG_KEY = 'cfg-key-0123456789abcdef';

function config(...args: Parameters<typeof standardConfig>): BreakwaterConfig {
  const base = standardConfig(...args);
  // gpt-test gets a price so that USD limits can be reached: 1 USD per million tokens each way.
  const oa = base.providers!.find((p) => p.id === 'oa')!;
  oa.models = [{ id: 'gpt-test', price: { input: 1, output: 1 } }, 'gpt-shared'];
  return {
    ...base,
    gateway: { apiKeys: [{ name: 'from-config', key: CONFIG_KEY, scopes: ['lease:exclusive'] }] },
  };
}

let gw: TestGateway;
// Budget windows are calendar minutes and days: tests that fill one start just after one began.
let offset = 0;
const clock = { now: () => Date.now() + offset };
function startOfAMinute(): void {
  offset += 60_000 - (clock.now() % 60_000) + 1_000;
}

beforeAll(async () => {
  gw = await startGateway({ config, clock });
});
afterAll(() => gw.close());

async function json<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const create = async (body: unknown) =>
  json<CreatedGatewayKey>(
    await gw.admin('/api/keys', { method: 'POST', body: JSON.stringify(body) }),
    201,
  );

const listKeys = async () => json<GatewayKeyView[]>(await gw.admin('/api/keys'));

function chat(key: string, model = 'oa/gpt-test'): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('gateway keys in the store', () => {
  it('imports the config file keys, without their secrets', async () => {
    const keys = await listKeys();
    const cfg = keys.find((k) => k.name === 'from-config')!;
    expect(cfg).toMatchObject({ source: 'config', scopes: ['lease:exclusive'], revokedAt: null });
    expect(JSON.stringify(keys)).not.toContain(CONFIG_KEY);
    expect((await chat(CONFIG_KEY)).status).toBe(200);
  });

  it('creates a key whose secret is shown once, stored hashed, and serves it', async () => {
    const created = await create({ name: 'ci', scopes: [] });
    expect(created.key).toMatch(/^bw-/);
    const listed = (await listKeys()).find((k) => k.id === created.id)!;
    expect(listed.name).toBe('ci');
    expect(listed.prefix).toBe(created.key.slice(0, listed.prefix.length));
    expect(JSON.stringify(await listKeys())).not.toContain(created.key);
    const sdk = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: created.key, maxRetries: 0 });
    const res = await sdk.chat.completions.create({
      model: 'oa/gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]?.message.content).toBeTruthy();
    // The request log names the key.
    await eventually(async () => {
      const logs = (await (await gw.admin('/api/logs?limit=1')).json()) as { keyName: string }[];
      return logs[0]?.keyName === 'ci';
    });
    // The secret is nowhere in the database file.
    const { readFileSync } = await import('node:fs');
    const db = readFileSync(`${gw.dataDir}/breakwater.db`);
    expect(db.includes(Buffer.from(created.key))).toBe(false);
  });

  it('renames a key and refuses a name already used', async () => {
    const a = await create({ name: 'rename-me' });
    await create({ name: 'taken' });
    const renamed = await json<GatewayKeyView>(
      await gw.admin(`/api/keys/${a.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ name: 'renamed', allowedConnections: ['oa-1'] }),
      }),
    );
    expect(renamed).toMatchObject({ name: 'renamed', allowedConnections: ['oa-1'] });
    const clash = await gw.admin(`/api/keys/${a.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'taken' }),
    });
    expect(clash.status).toBe(409);
    const bad = await gw.admin('/api/keys', { method: 'POST', body: JSON.stringify({ name: '' }) });
    expect(bad.status).toBe(400);
    const missing = await gw.admin('/api/keys/key_nope', { method: 'DELETE' });
    expect(missing.status).toBe(404);
  });

  it('a revoked key is refused from the next request on', async () => {
    const k = await create({ name: 'revoke-me' });
    expect((await chat(k.key)).status).toBe(200);
    const calls = gw.primary.requestCount;
    expect((await gw.admin(`/api/keys/${k.id}`, { method: 'DELETE' })).status).toBe(200);
    const refused = await chat(k.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_api_key',
    );
    expect(gw.primary.requestCount).toBe(calls);
    expect((await listKeys()).find((x) => x.id === k.id)?.revokedAt).not.toBeNull();
  });

  it('rotating gives a new secret and refuses the old one', async () => {
    const k = await create({ name: 'rotate-me' });
    const rotated = await json<CreatedGatewayKey>(
      await gw.admin(`/api/keys/${k.id}/rotate`, { method: 'POST' }),
    );
    expect(rotated.id).toBe(k.id);
    expect(rotated.key).not.toBe(k.key);
    expect((await chat(k.key)).status).toBe(401);
    expect((await chat(rotated.key)).status).toBe(200);
  });

  it('keys and revocations survive a restart without the config', async () => {
    const k = await create({ name: 'durable' });
    const gone = await create({ name: 'gone' });
    await gw.admin(`/api/keys/${gone.id}`, { method: 'DELETE' });
    await gw.restart();
    expect((await chat(k.key)).status).toBe(200);
    expect((await chat(gone.key)).status).toBe(401);
    expect((await chat(CONFIG_KEY)).status).toBe(200);
    await gw.restart(config(gw.primary, gw.backup));
  });
});

describe('budgets per key: 429 budget_exceeded before any upstream call', () => {
  async function refused(key: string, limit: string): Promise<void> {
    const calls = gw.primary.requestCount;
    const res = await chat(key);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(429);
    expect(body.error.code).toBe('budget_exceeded');
    expect(res.headers.get('x-breakwater-budget-limit')).toBe(limit);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(gw.primary.requestCount).toBe(calls);
  }

  beforeAll(() => startOfAMinute());

  it('requests per minute', async () => {
    const k = await create({ name: 'rpm', limits: { requestsPerMinute: 2 } });
    const events: EngineEvent[] = [];
    const off = gw.engine.onEvent((e) => events.push(e));
    expect((await chat(k.key)).status).toBe(200);
    expect((await chat(k.key)).status).toBe(200);
    off();
    await refused(k.key, 'requestsPerMinute');
    const warned = events.filter((e) => e.type === 'budget.threshold');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ key: 'rpm', limit: 'requestsPerMinute', max: 2 });
  });

  it('tokens per day', async () => {
    const k = await create({ name: 'tpd', limits: { tokensPerDay: 150 } });
    gw.primary.script({ usage: { input: 100, output: 60 } });
    expect((await chat(k.key)).status).toBe(200);
    await eventually(async () => (await chat(k.key)).status === 429);
    await refused(k.key, 'tokensPerDay');
  });

  it('USD per day and per month', async () => {
    const day = await create({ name: 'usd-day', limits: { usdPerDay: 0.001 } });
    const month = await create({ name: 'usd-month', limits: { usdPerMonth: 0.001 } });
    gw.primary.script(
      { usage: { input: 600, output: 600 } },
      { usage: { input: 600, output: 600 } },
    );
    expect((await chat(day.key)).status).toBe(200);
    expect((await chat(month.key)).status).toBe(200);
    await refused(day.key, 'usdPerDay');
    await refused(month.key, 'usdPerMonth');
    const spend = (await listKeys()).find((x) => x.name === 'usd-month')!.spend;
    expect(spend.usdThisMonth).toBeCloseTo(0.0012, 10);
  });

  it('limits set through PATCH apply at once, and lifting them lets the key through', async () => {
    startOfAMinute();
    const k = await create({ name: 'patched' });
    await gw.admin(`/api/keys/${k.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ limits: { requestsPerMinute: 1 } }),
    });
    expect((await chat(k.key)).status).toBe(200);
    await refused(k.key, 'requestsPerMinute');
    await gw.admin(`/api/keys/${k.id}`, { method: 'PATCH', body: JSON.stringify({ limits: {} }) });
    expect((await chat(k.key)).status).toBe(200);
  });
});
