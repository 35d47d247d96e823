import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { ANTHROPIC_KEY, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';
import { sseEvents } from '../support/translate-fixtures';

const GATEWAY_KEY = 'bw-test-gateway-key-0123456789';
const GEMINI_KEY = 'AIza-test-gemini-0123456789abcdef';
const FIXTURES = join(__dirname, '..', 'fixtures', 'translate');

/**
 * A Gemini API upstream on loopback: it records each request and answers with the recorded
 * Gemini fixtures (the streamed one for `:streamGenerateContent`).
 */
interface GeminiUpstream {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function startGeminiUpstream(): Promise<GeminiUpstream> {
  const requests: GeminiUpstream['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      requests.push({
        path,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
      });
      if (path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(readFileSync(join(FIXTURES, 'stream-gemini.sse')));
      } else if (path.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 42 }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(readFileSync(join(FIXTURES, 'response-gemini.json')));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let gemini: GeminiUpstream;
let gw: TestGateway;

function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    gateway: { apiKeys: [{ name: 'agents', key: GATEWAY_KEY }] },
    providers: [
      {
        id: 'oc',
        format: 'openai-chat',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oc-1', apiKey: OPENAI_KEY }],
        models: ['chat-model'],
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
        baseUrl: `${gemini.url}/v1beta`,
        authClass: 'api_key',
        connections: [{ id: 'gm-1', apiKey: GEMINI_KEY }],
        models: ['gemini-2.5-flash'],
      },
    ],
    combos: [
      { name: 'gemini-2.5-pro', strategy: 'priority', targets: ['an/claude-test'] },
      { name: 'gemini-on-chat', strategy: 'priority', targets: ['oc/chat-model'] },
      { name: 'gpt-on-gemini', strategy: 'priority', targets: ['gm/gemini-2.5-flash'] },
    ],
  } as BreakwaterConfig;
}

beforeAll(async () => {
  gemini = await startGeminiUpstream();
  gw = await startGateway({ config: (primary) => config(primary) });
});
afterAll(async () => {
  await gw?.close();
  await gemini?.close();
});
beforeEach(() => {
  gw.primary.reset();
  gemini.requests.length = 0;
  gw.resetResilience();
});

const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        parametersJsonSchema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
    ],
  },
];

function generate(
  model: string,
  body: unknown,
  method = 'streamGenerateContent?alt=sse',
  auth: Record<string, string> = { 'x-goog-api-key': GATEWAY_KEY },
) {
  return fetch(`${gw.url}/v1beta/models/${model}:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify(body),
  });
}

const question = { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], tools };

describe('Gemini API clients', () => {
  it('a streamed tool turn on an Anthropic provider comes back as Gemini chunks', async () => {
    gw.primary.script({
      text: 'Let me look.',
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    const res = await generate('gemini-2.5-pro', question);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = sseEvents(await res.text()).map(
      (e) =>
        e.data as {
          candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[];
          usageMetadata?: unknown;
        },
    );
    const parts = events.flatMap((e) => e.candidates[0]!.content.parts);
    expect(parts.map((p) => p.text ?? '').join('')).toBe('Let me look.');
    expect(parts.find((p) => p.functionCall)).toEqual({
      functionCall: { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } },
    });
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: expect.any(Number) },
    });
    const seen = gw.primary.requests.at(-1)!;
    expect(seen.path).toBe('/v1/messages');
    expect(seen.body).toMatchObject({
      model: 'claude-test',
      stream: true,
      tools: [{ name: 'get_weather' }],
    });
  });

  it('the tool result goes back to a Chat provider as a tool message, whole answer, key in ?key=', async () => {
    gw.primary.script({ text: 'It is sunny.' });
    const res = await generate(
      'gemini-on-chat',
      {
        contents: [
          ...question.contents,
          {
            role: 'model',
            parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
          },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
          },
        ],
        tools,
      },
      `generateContent?key=${GATEWAY_KEY}`,
      {},
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'It is sunny.' }] }, finishReason: 'STOP' },
      ],
    });
    const seen = gw.primary.requests.at(-1)!;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.body.messages.slice(1)).toMatchObject([
      {
        role: 'assistant',
        tool_calls: [{ id: 'call_gemini_0', function: { name: 'get_weather' } }],
      },
      { role: 'tool', tool_call_id: 'call_gemini_0', content: 'sunny' },
    ]);
    expect(JSON.stringify(seen.headers)).not.toContain(GATEWAY_KEY);
  });

  it('a Gemini provider gets its own path, key header and model; the gateway key stays behind', async () => {
    const res = await generate(
      'gm%2Fgemini-2.5-flash',
      question,
      `streamGenerateContent?alt=sse&key=${GATEWAY_KEY}`,
      {},
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(readFileSync(join(FIXTURES, 'stream-gemini.sse'), 'utf8'));
    const seen = gemini.requests.at(-1)!;
    expect(seen.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(seen.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.body).toEqual(question);
  });

  it('countTokens is estimated for other providers and passed to a Gemini provider', async () => {
    const estimated = await generate(
      'gemini-on-chat',
      { contents: question.contents },
      'countTokens',
    );
    expect(estimated.headers.get('x-breakwater-token-count')).toBe('estimate');
    expect(await estimated.json()).toEqual({ totalTokens: expect.any(Number) });
    const counted = await generate('gpt-on-gemini', { contents: question.contents }, 'countTokens');
    expect(await counted.json()).toEqual({ totalTokens: 42 });
    expect(gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
  });

  it("refusals are in Google's error shape", async () => {
    const wrongKey = await generate('gemini-2.5-pro', question, 'generateContent', {
      'x-goog-api-key': 'nope',
    });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toMatchObject({
      error: { code: 401, status: 'UNAUTHENTICATED' },
    });
    const unknown = await generate('no-such-model', question);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', details: [{ reason: 'model_not_found' }] },
    });
  });

  it('GET /v1beta/models lists the names in the Gemini shape', async () => {
    const res = await fetch(`${gw.url}/v1beta/models`, {
      headers: { 'x-goog-api-key': GATEWAY_KEY },
    });
    const body = (await res.json()) as { models: { name: string }[] };
    expect(body.models.map((m) => m.name)).toContain('models/gemini-2.5-pro');
  });
});

describe('other clients on a Gemini provider', () => {
  it('the OpenAI SDK streams a tool turn from a Gemini upstream', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'gpt-on-gemini',
      stream: true,
      messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
      ],
    });
    let text = '';
    const calls: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      for (const c of choice?.delta.tool_calls ?? [])
        if (c.function?.name) calls.push(c.function.name);
      finish = choice?.finish_reason ?? finish;
    }
    expect(text).toBe('Checking both.');
    expect(calls).toEqual(['get_weather', 'get_weather']);
    expect(finish).toBe('tool_calls');
    const seen = gemini.requests.at(-1)!;
    expect(seen.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(seen.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris and Oslo?' }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
    });
    expect(seen.body.model).toBeUndefined();
  });
});

describe('path variants', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify(body),
    });

  it('/messages and /v1/v1/messages are /v1/messages; /chat/completions without /v1 too', async () => {
    const messages = {
      model: 'an/claude-test',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect((await post('/messages', messages)).status).toBe(200);
    expect((await post('/v1/v1/messages', messages)).status).toBe(200);
    expect(gw.primary.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    const chat = { model: 'oc/chat-model', messages: [{ role: 'user', content: 'hi' }] };
    expect((await post('/chat/completions', chat)).status).toBe(200);
    expect((await post('/v1/v1/chat/completions', chat)).status).toBe(200);
    const models = await fetch(`${gw.url}/v1/v1/models`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
    });
    expect(models.status).toBe(200);
  });

  it('a path that is none of them is still a 404 naming the endpoints', async () => {
    const res = await post('/v2/messages', {});
    expect(res.status).toBe(404);
    expect(JSON.stringify(await res.json())).toContain('generateContent');
  });
});
