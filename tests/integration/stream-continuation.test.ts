import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { FULL, readAnswer } from '../support/continuation-clients';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { ANTHROPIC_KEY, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

// Issue 28: a stream cut after text reached the client is finished by a continuation request;
// the client's SDK reads one whole answer. Providers of the three upstream kinds on one fake.
function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: ['gpt-test'],
      },
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: ANTHROPIC_KEY }],
        models: ['claude-test'],
      },
      {
        id: 'gm',
        format: 'gemini',
        baseUrl: `${primary.url}/v1beta`,
        authClass: 'api_key',
        connections: [{ id: 'gm-1', apiKey: 'gm-test-key-0123456789' }],
        models: ['gemini-test'],
      },
    ],
  };
}

let gw: TestGateway;
const TARGETS = ['oa/gpt-test', 'an/claude-test', 'gm/gemini-test'] as const;

beforeAll(async () => {
  gw = await startGateway({
    config: (primary) => config(primary),
    env: { BREAKWATER_STREAM_CONTINUATION: process.env.OFF ? 'false' : 'true' },
  });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
});

function cutThenFinish(cut: FakeStep, finish: FakeStep = {}): void {
  gw.primary.script(
    { text: FULL, byWords: true, ...cut },
    { finish: { text: FULL }, byWords: true, ...finish },
  );
}

describe('continue from the cut: each client format on each upstream format', () => {
  for (const client of ['chat', 'anthropic', 'responses', 'gemini'] as const) {
    for (const target of TARGETS) {
      it(`${client} client, ${target.split('/')[0]} upstream: a reset after 9 words`, async () => {
        cutThenFinish({ resetAfterChunks: 9 });
        const { text, stops } = await readAnswer(gw.url, client, target);
        expect(text).toBe(FULL);
        expect(stops).toHaveLength(1);
        expect(gw.primary.requests).toHaveLength(2);
      });
    }
  }
});
