import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_KEY,
  OPENAI_KEY,
  standardConfig,
  startGateway,
  type TestGateway,
} from '../support/gateway';

const WIDE_MODEL = 'qwen-通义';
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    config: (primary, backup) => {
      const base = standardConfig(primary, backup);
      return {
        ...base,
        providers: [
          ...(base.providers ?? []),
          {
            id: 'cn',
            format: 'openai',
            baseUrl: `${primary.url}/v1`,
            authClass: 'api_key',
            connections: [{ id: 'cn-1', apiKey: OPENAI_KEY }],
            models: [WIDE_MODEL],
          },
        ],
        combos: [
          ...(base.combos ?? []),
          { name: '通义', strategy: 'priority', targets: [`cn/${WIDE_MODEL}`] },
        ],
      };
    },
  });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}
const chat = (model: string, stream = false) =>
  post('/v1/chat/completions', { model, stream, messages: [{ role: 'user', content: 'hi' }] });
const messages = (model: string, stream = false) =>
  post(
    '/v1/messages',
    { model, stream, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    { 'anthropic-version': '2023-06-01' },
  );

describe('defect 3: header values from request or config data are written safely', () => {
  it('a model and a connection outside Latin-1 are served, their names percent-encoded in the headers', async () => {
    for (const res of [
      await chat(WIDE_MODEL),
      await chat('通义', true),
      await messages(`cn/${WIDE_MODEL}`),
      await messages('通义', true),
    ]) {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(res.headers.get('x-breakwater-connection')).toBe('cn-1');
    }
    const combo = await chat('通义');
    expect(combo.headers.get('x-breakwater-decision')).toMatch(/^combo %E9%80%9A%E4%B9%89/);
  });

  it("a failed attempt on such a model relays the upstream's error in the client format, not internal_error", async () => {
    gw.primary.script({ status: 503 });
    const res = await messages('通义');
    const body = (await res.json()) as { type?: string; error?: { code?: string } };
    expect(res.status).toBe(503);
    expect(body.type).toBe('error');
    expect(body.error?.code).not.toBe('internal_error');
    expect(decodeURIComponent(res.headers.get('x-breakwater-decision') ?? '')).toContain('通义');
  });

  it('a control character in `model` is a 400 in the client format before any upstream call', async () => {
    const anthropic = await messages('claude-test\u0001');
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'invalid_model' },
    });
    const openai = await chat('gpt-test\r\nx-injected: 1');
    expect(openai.status).toBe(400);
    expect(await openai.json()).toMatchObject({ error: { code: 'invalid_model', param: 'model' } });
    expect(gw.primary.requests).toHaveLength(0);
  });
});

const LEAKY = {
  'x-request-id': `req-${OPENAI_KEY}`,
  'request-id': `req_${ANTHROPIC_KEY}`,
  'openai-organization': OPENAI_KEY,
  'anthropic-organization-id': 'org-1234',
  'set-cookie': 'session=abc',
  'x-internal-route': 'shard-7',
  'x-ratelimit-remaining-requests': '99',
  'anthropic-ratelimit-requests-remaining': '42',
};

function expectScrubbed(res: Response): void {
  const all = JSON.stringify([...res.headers.entries()]);
  expect(all).not.toContain(OPENAI_KEY);
  expect(all).not.toContain(ANTHROPIC_KEY);
  expect(res.headers.get('openai-organization')).toBeNull();
  expect(res.headers.get('anthropic-organization-id')).toBeNull();
  expect(res.headers.get('set-cookie')).toBeNull();
  expect(res.headers.get('x-internal-route')).toBeNull();
  expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('99');
  expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('42');
  expect(res.headers.get('x-request-id')).toBe('req-[redacted]');
}

describe('defect 6: relayed response headers are an allowlist scrubbed of every secret', () => {
  it('a passthrough answer, streamed or not', async () => {
    for (const stream of [false, true]) {
      gw.primary.script({ headers: LEAKY });
      const res = await chat('gpt-test', stream);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expectScrubbed(res);
    }
  });

  it('a translated answer and a relayed upstream error', async () => {
    gw.primary.script({ headers: LEAKY });
    const translated = await messages('oa/gpt-test', true);
    expect(translated.status).toBe(200);
    await translated.arrayBuffer();
    expectScrubbed(translated);

    gw.primary.script({ status: 400, headers: LEAKY });
    const error = await chat('oa/gpt-test');
    expect(error.status).toBe(400);
    await error.arrayBuffer();
    expectScrubbed(error);
  });
});
