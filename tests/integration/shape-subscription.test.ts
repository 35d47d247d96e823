import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/shared/contract';
import { unifiedHeaders } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';
import { anthropicError } from './shape-harness';

// A repair is one attempt's internal retry inside the upstream call, so the subscription limit
// check, which runs after it (RESILIENCE.md §2), still intercepts a limit 429 that arrives
// during it: the low-priority lane takes over on the same connection, with the repaired body.

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    config: (primary) => ({
      providers: [
        {
          id: 'sub',
          format: 'anthropic',
          baseUrl: primary.url,
          authClass: 'oauth',
          connections: [
            { id: 'sub-1', apiKey: 'sk-ant-oat-sub-1-0123456789', lowPriorityMode: true },
            { id: 'sub-2', apiKey: 'sk-ant-oat-sub-2-0123456789' },
          ],
          models: ['claude-sub'],
        },
      ],
    }),
  });
});
afterAll(() => gw.close());

describe('a limit 429 during a repair', () => {
  it('is answered by the lane on the same connection, and the body stays repaired', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    gw.primary.script(
      anthropicError(
        '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
      ),
      {
        status: 429,
        headers: unifiedHeaders({ status: 'rejected', reset, slowOffer: 'treatment' }),
      },
      {},
    );
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'sub/claude-sub',
        max_tokens: 16,
        temperature: 0.5,
        top_p: 0.9,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-connection')).toBe('sub-1');
    const calls = gw.primary.requests.filter((r) => r.path.startsWith('/v1/messages'));
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => 'top_p' in c.body)).toEqual([true, false, false]);
    expect(calls.map((c) => c.headers['anthropic-usage-limit'])).toEqual([
      undefined,
      undefined,
      'slow',
    ]);
    const state = (await (await gw.admin('/api/state')).json()) as Snapshot;
    expect(state.connections.find((c) => c.id === 'sub-1')).toMatchObject({
      status: 'active',
      rateLimitedUntil: null,
      lane: 'slow',
    });
  });
});
