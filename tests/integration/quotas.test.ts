// The provider quota view through the gateway: what each connection's upstream announces in its
// rate-limit headers (OpenAI-style x-ratelimit-*, Anthropic's anthropic-ratelimit-* and the
// unified 5-hour and weekly utilization) is in the snapshot per connection, and still there
// after a restart.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, ConnectionQuotaView, Snapshot } from '../../src/shared/contract';
import { ANTHROPIC_KEY, standardConfig, startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
let config: BreakwaterConfig;
beforeAll(async () => {
  gw = await startGateway({
    config: (p, b) => {
      config = standardConfig(p, b);
      return config;
    },
  });
});
afterAll(() => gw.close());

async function quotas(): Promise<Record<string, ConnectionQuotaView>> {
  const state = (await (await gw.admin('/api/state')).json()) as Snapshot;
  return Object.fromEntries((state.quotas ?? []).map((q) => [q.connection, q]));
}

const FIVE_H_RESET = Math.floor(Date.now() / 1000) + 3 * 3600;
const WEEK_RESET = Math.floor(Date.now() / 1000) + 4 * 86400;

describe('provider quota per connection', () => {
  it('OpenAI-style x-ratelimit-* headers: remaining requests and tokens with their resets', async () => {
    gw.primary.script({
      headers: {
        'x-ratelimit-limit-requests': '100',
        'x-ratelimit-remaining-requests': '42',
        'x-ratelimit-reset-requests': '6m0s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': '2500',
        'x-ratelimit-reset-tokens': '20s',
      },
    });
    const before = Date.now();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const q = (await quotas())['oa-1']!;
    expect(q).toMatchObject({
      provider: 'oa',
      requests: { remaining: 42, limit: 100 },
      tokens: { remaining: 2500, limit: 10000 },
      fiveHour: null,
      weekly: null,
    });
    expect(q.requests!.resetAt!).toBeGreaterThanOrEqual(before + 360_000);
    expect(q.requests!.resetAt!).toBeLessThan(Date.now() + 360_000 + 1000);
    expect(q.tokens!.resetAt! - q.learnedAt).toBe(20_000);
  });

  it('Anthropic headers and the unified 5-hour and weekly utilization, on a stream', async () => {
    const reqReset = new Date(Date.now() + 30_000).toISOString();
    gw.primary.script({
      headers: {
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '10',
        'anthropic-ratelimit-requests-reset': reqReset,
        'anthropic-ratelimit-input-tokens-limit': '40000',
        'anthropic-ratelimit-input-tokens-remaining': '39000',
        'anthropic-ratelimit-input-tokens-reset': reqReset,
        'anthropic-ratelimit-output-tokens-limit': '8000',
        'anthropic-ratelimit-output-tokens-remaining': '7950',
        'anthropic-ratelimit-output-tokens-reset': reqReset,
        'anthropic-ratelimit-unified-5h-utilization': '0.3',
        'anthropic-ratelimit-unified-5h-reset': String(FIVE_H_RESET),
        'anthropic-ratelimit-unified-7d-utilization': '0.6',
        'anthropic-ratelimit-unified-7d-reset': String(WEEK_RESET),
      },
    });
    const client = new Anthropic({ baseURL: gw.url, apiKey: ANTHROPIC_KEY, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'an/claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await stream.finalMessage();
    const q = (await quotas())['an-1']!;
    expect(q.requests).toEqual({ remaining: 10, limit: 50, resetAt: Date.parse(reqReset) });
    expect(q.inputTokens).toEqual({
      remaining: 39000,
      limit: 40000,
      resetAt: Date.parse(reqReset),
    });
    expect(q.outputTokens).toEqual({ remaining: 7950, limit: 8000, resetAt: Date.parse(reqReset) });
    expect(q.fiveHour).toEqual({ remaining: 70, limit: 100, resetAt: FIVE_H_RESET * 1000 });
    expect(q.weekly!.remaining).toBeCloseTo(40, 10);
    expect(q.weekly!.resetAt).toBe(WEEK_RESET * 1000);
  });

  it('a connection whose upstream says nothing has no quota, and a restart keeps what was known', async () => {
    expect((await quotas())['oa2-1']).toBeUndefined();
    const known = await quotas();
    expect(Object.keys(known).sort()).toEqual(['an-1', 'oa-1']);
    await gw.restart(config);
    expect(await quotas()).toEqual(known);
  });
});
