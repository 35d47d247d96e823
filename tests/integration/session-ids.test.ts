import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

// Combo `coder` is oa → oa2. A first request that the primary refuses lands on oa2 and pins
// its session there; a second request of the same session then goes to oa2 first.
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

function post(path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Sends `body` twice: the first lands on the backup (primary refuses), the second is told apart. */
async function secondDecision(path: string, body: Record<string, unknown>): Promise<string> {
  gw.primary.script({ status: 500 });
  expect((await post(path, body)).status).toBe(200);
  gw.resetResilience();
  const second = await post(path, body);
  expect(second.status).toBe(200);
  return second.headers.get('x-breakwater-decision') ?? '';
}

const chat = (extra: Record<string, unknown>) => ({
  model: 'coder',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

describe('session ids from the body pin a session when no header names one', () => {
  it('prompt_cache_key of a Chat request (Qwen Code)', async () => {
    expect(
      await secondDecision('/v1/chat/completions', chat({ prompt_cache_key: 'qwen-s1' })),
    ).toContain('session pinned to oa2-1');
  });

  it('prompt_cache_key of a large request, found by the member scan without a full parse', async () => {
    const big = chat({ prompt_cache_key: 'qwen-big', padding: 'x'.repeat(200 * 1024) });
    expect(await secondDecision('/v1/chat/completions', big)).toContain('session pinned to oa2-1');
  });

  it("the session inside Claude Code's metadata.user_id", async () => {
    const body = {
      model: 'coder',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'hi' }],
      metadata: {
        user_id:
          'user_3f2a_account_9b1c0d2e-1111-2222-3333-444455556666_session_0c8e7a51-aaaa-bbbb-cccc-ddddeeeeffff',
      },
    };
    expect(await secondDecision('/v1/messages', body)).toContain('session pinned to oa2-1');
  });

  it('a request without any session id is not pinned', async () => {
    expect(await secondDecision('/v1/chat/completions', chat({}))).not.toContain('session pinned');
  });
});
