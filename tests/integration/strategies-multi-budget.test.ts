// Issue 27, item 8: a multi-call request is one client request. Its calls share one failover
// budget (the final call is not left without one), and a key's budget reservation holds what
// all of its calls may spend, not one call's worth.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, CreatedGatewayKey } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';

const KEY = 'sk-test-multi-0123456789abcdef';

function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  const provider = (id: string, u: FakeUpstream, models: string[]) => ({
    id,
    format: 'openai' as const,
    baseUrl: `${u.url}/v1`,
    authClass: 'api_key' as const,
    connections: [{ id: `${id}-1`, apiKey: KEY }],
    models,
  });
  return {
    providers: [provider('p', primary, ['m', 'big']), provider('b', backup, ['m', 'judge'])],
    combos: [
      {
        name: 'fuse',
        strategy: 'fusion',
        targets: [],
        options: { panel: ['p/m', 'b/m'], judge: 'b/judge' },
      },
      { name: 'pipe', strategy: 'pipeline', targets: ['p/m', 'b/m', 'p/big'] },
    ],
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

const settings = (patch: Record<string, unknown>) =>
  gw.admin('/api/settings', { method: 'PATCH', body: JSON.stringify(patch) });

describe('a multi-call request shares one failover budget', () => {
  afterAll(() => settings({ 'routing.failoverBudgetMs': null }));

  it('slow pipeline steps do not leave the last step without budget', async () => {
    expect((await settings({ 'routing.failoverBudgetMs': 1000 })).status).toBe(200);
    // Each early step takes longer than its share; before, each got a fresh budget of its own
    // and the last step found the request's spent: 404 no_executable_targets after two calls.
    gw.primary.script({ delayMs: 700, text: 'DRAFT-1' }, { text: 'FINAL' });
    gw.backup.script({ delayMs: 700, text: 'DRAFT-2' });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const started = Date.now();
    const { data, response } = await openai.chat.completions
      .create({ model: 'pipe', messages: [{ role: 'user', content: 'q' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('FINAL');
    const decision = decodeURIComponent(response.headers.get('x-breakwater-decision') ?? '');
    expect(decision).toContain('p/big answers without a draft');
    // The whole request stays within its one budget (and a little for the final call).
    expect(Date.now() - started).toBeLessThan(1000 + 500);
  });
});

describe('the budget reservation of a multi-call request', () => {
  async function key(limits: Record<string, number>): Promise<string> {
    const res = await gw.admin('/api/keys', {
      method: 'POST',
      body: JSON.stringify({ name: `k-${Math.random().toString(36).slice(2)}`, limits }),
    });
    return ((await res.json()) as CreatedGatewayKey).key;
  }
  const chat = (k: string, model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });

  it('holds every call a fusion or pipeline request will make', async () => {
    // One call's estimate (~100 tokens) fits in 400; three calls, two of them reading earlier
    // answers of up to 100 tokens each, do not.
    const k = await key({ tokensPerDay: 400 });
    expect((await chat(k, 'p/m')).status).toBe(200);
    gw.primary.reset();
    gw.backup.reset();
    for (const model of ['fuse', 'pipe']) {
      const res = await chat(k, model);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'budget_exceeded',
      );
    }
    expect(gw.primary.requestCount + gw.backup.requestCount).toBe(0);
  });
});
