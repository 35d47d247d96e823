import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAI_KEY, standardConfig, startGateway, type TestGateway } from '../support/gateway';

const GATEWAY_KEY = 'bw-agent-key-0123456789abcdef';
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    config: (primary, backup) => ({
      ...standardConfig(primary, backup),
      gateway: { apiKeys: [{ name: 'agent', key: GATEWAY_KEY }] },
    }),
  });
});
afterAll(() => gw.close());

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('gateway API keys', () => {
  it("refuses a client without a key, in the client's own format", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'wrong-key', maxRetries: 0 });
    await expect(
      openai.chat.completions.create({ model: 'gpt-test', messages }),
    ).rejects.toMatchObject({
      status: 401,
      error: { code: 'invalid_api_key' },
    });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'wrong-key', maxRetries: 0 });
    await expect(
      anthropic.messages.create({ model: 'claude-test', max_tokens: 5, messages }),
    ).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    expect(gw.primary.requests).toHaveLength(0);
  });

  it('accepts the key as a Bearer token and as x-api-key, and sends the connection key upstream instead', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages });
    expect(gw.primary.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: 'claude-test', max_tokens: 5, messages });
    const seen = gw.primary.requests.at(-1)!;
    expect(seen.headers['x-api-key']).not.toBe(GATEWAY_KEY);
    expect(JSON.stringify(seen.headers)).not.toContain(GATEWAY_KEY);
  });
});

describe('upstream headers are built from scratch', () => {
  // Lease headers are fenced (a bogus owner is refused before dispatch); that they never reach
  // the upstream is checked in tests/integration/leases.test.ts.
  it('passes OpenAI organization/project through and drops auth and session headers', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${GATEWAY_KEY}`,
        'openai-organization': 'org-123',
        'openai-project': 'proj-456',
        'x-session-id': 'sess-1',
        'x-claude-code-session-id': 'sess-2',
        'session-id': 'sess-3',
        'x-breakwater-session': 'sess-4',
        cookie: 'a=b',
        'x-custom-client-header': 'nope',
      },
      body: JSON.stringify({ model: 'gpt-test', messages }),
    });
    expect(res.status).toBe(200);
    const h = gw.primary.requests.at(-1)!.headers;
    expect(h['openai-organization']).toBe('org-123');
    expect(h['openai-project']).toBe('proj-456');
    for (const dropped of [
      'x-session-id',
      'x-claude-code-session-id',
      'session-id',
      'x-breakwater-session',
      'cookie',
      'x-custom-client-header',
    ]) {
      expect(h[dropped]).toBeUndefined();
    }
  });
});

describe('the client query string', () => {
  it('is passed upstream (Claude Code calls /v1/messages?beta=true)', async () => {
    const res = await fetch(`${gw.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': GATEWAY_KEY,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages }),
    });
    expect(res.status).toBe(200);
    expect(gw.primary.requests.at(-1)!.path).toBe('/v1/messages?beta=true');
  });
});
