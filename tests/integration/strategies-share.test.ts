import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';

const HEAVY = 'bw-heavy-key-0123456789abcdef';
const LIGHT = 'bw-light-key-0123456789abcdef';

/** One connection with one slot, shared by two gateway keys through a quota-share combo. */
function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    gateway: {
      apiKeys: [
        { name: 'heavy', key: HEAVY },
        { name: 'light', key: LIGHT },
      ],
    },
    providers: [
      {
        id: 'p',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'p-1', apiKey: 'sk-share-0123456789abcdef', maxConcurrent: 1 }],
        models: ['m'],
      },
    ],
    combos: [{ name: 'share', strategy: 'quota-share', targets: ['p/m'] }],
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
});
afterAll(() => gw.close());

function send(key: string, tag: string, stream: boolean) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'share', messages: [{ role: 'user', content: tag }], stream }),
  }).then(async (r) => ({
    status: r.status,
    decision: decodeURIComponent(r.headers.get('x-breakwater-decision') ?? ''),
    body: await r.text(),
  }));
}

describe('quota-share between gateway keys', () => {
  it('a light key is not stuck behind a heavy one: deficit round robin, not first come first served', async () => {
    gw.primary.setDefault({ chunkDelayMs: 150, chunks: 2 });
    const heavy = [0, 1, 2, 3, 4, 5].map((i) => send(HEAVY, `heavy ${i}`, i % 2 === 0));
    // The heavy key's requests are all in (one upstream, five waiting) before the light one.
    await gw.primary.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 100));
    const light = send(LIGHT, 'light 0', false);
    const answers = await Promise.all([...heavy, light]);
    for (const a of answers) expect(a.status).toBe(200);
    const order = gw.primary.requests.map((r) => r.body.messages[0].content as string);
    // First come, first served would put it last (7th). Deficit round robin gives each waiting
    // key a turn: heavy's turn came first (it was waiting first), then light's.
    expect(order.indexOf('light 0')).toBe(2);
    expect(order.filter((t) => t.startsWith('heavy'))).toHaveLength(6);
    const lightAnswer = answers[6]!;
    expect(lightAnswer.decision).toMatch(
      /^combo share \(quota-share\); waited \d+ ms for key light's turn in the share; one connection; p\/m@p-1 served$/,
    );
  });
});
