import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY_TEXT } from '../support/fake-upstream';
import {
  ANTHROPIC_KEY,
  eventually,
  OPENAI_KEY,
  startGateway,
  type TestGateway,
} from '../support/gateway';

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway();
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'any-client-key', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'any-client-key', maxRetries: 0 });
});
afterAll(() => gw.close());

const messages = [{ role: 'user' as const, content: 'Say hello' }];

describe('OpenAI Chat Completions through the gateway', () => {
  it('answers a non-streaming request from the provider and forwards the model name it knows', async () => {
    const res = await openai.chat.completions.create({ model: 'coder', messages });
    expect(res.choices[0]?.message.content).toBe(DEFAULT_REPLY_TEXT);
    const seen = gw.primary.requests.at(-1)!;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.body.model).toBe('gpt-test');
    expect(seen.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('relays a stream chunk by chunk, ending with usage', async () => {
    const stream = await openai.chat.completions.create({
      model: 'oa/gpt-test',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage: unknown = null;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(DEFAULT_REPLY_TEXT);
    expect(chunks).toBeGreaterThan(3);
    expect(usage).not.toBeNull();
  });

  it('sends the first bytes of a stream before the upstream has finished', async () => {
    gw.primary.script({ chunks: 4, chunkDelayMs: 300 });
    const started = Date.now();
    const stream = await openai.chat.completions.create({
      model: 'gpt-test',
      messages,
      stream: true,
    });
    let firstAt = 0;
    for await (const chunk of stream) {
      if (!firstAt && chunk.choices[0]?.delta.content) firstAt = Date.now() - started;
    }
    const total = Date.now() - started;
    expect(firstAt).toBeLessThan(total - 500);
  });
});

describe('OpenAI Responses through the gateway', () => {
  it('answers a non-streaming request', async () => {
    const res = await openai.responses.create({ model: 'gpt-test', input: 'Say hello' });
    expect(res.output_text).toBe(DEFAULT_REPLY_TEXT);
    expect(gw.primary.requests.at(-1)!.path).toBe('/v1/responses');
  });

  it('relays a stream of events in order', async () => {
    const stream = await openai.responses.create({
      model: 'gpt-test',
      input: 'Say hello',
      stream: true,
    });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe(DEFAULT_REPLY_TEXT);
  });
});

describe('Anthropic Messages through the gateway', () => {
  it('answers a non-streaming request with the connection key and a default anthropic-version', async () => {
    const msg = await anthropic.messages.create({ model: 'claude', max_tokens: 64, messages });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: DEFAULT_REPLY_TEXT });
    const seen = gw.primary.requests.at(-1)!;
    expect(seen.path).toBe('/v1/messages');
    expect(seen.body.model).toBe('claude-test');
    expect(seen.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(seen.headers['anthropic-version']).toBeDefined();
  });

  it('relays a stream and passes anthropic-beta through', async () => {
    const stream = anthropic.messages.stream(
      { model: 'claude-test', max_tokens: 64, messages },
      { headers: { 'anthropic-beta': 'test-beta-2025' } },
    );
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: DEFAULT_REPLY_TEXT });
    expect(gw.primary.requests.at(-1)!.headers['anthropic-beta']).toBe('test-beta-2025');
  });

  it('counts tokens', async () => {
    const res = await anthropic.messages.countTokens({ model: 'claude-test', messages });
    expect(res.input_tokens).toBeGreaterThan(0);
    expect(gw.primary.requests.at(-1)!.path).toBe('/v1/messages/count_tokens');
  });
});

describe('GET /v1/models', () => {
  it('lists combos, unambiguous bare models and provider/model names in OpenAI format', async () => {
    const ids: string[] = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    expect(ids.slice(0, 2)).toEqual(['coder', 'claude']);
    expect(ids).toContain('gpt-test');
    expect(ids).toContain('oa/gpt-shared');
    expect(ids).toContain('oa2/gpt-shared');
    // Listed by two providers, so the bare name does not resolve and is not offered.
    expect(ids).not.toContain('gpt-shared');
  });

  it('answers Anthropic clients in their format', async () => {
    const ids: string[] = [];
    for await (const m of anthropic.models.list()) {
      expect(m.type).toBe('model');
      ids.push(m.id);
    }
    expect(ids).toContain('claude');
  });
});

describe('request log', () => {
  it('records format, model, target, connection, status, timing and tokens', async () => {
    await openai.chat.completions.create({ model: 'coder', messages });
    await eventually(async () => {
      const rows = (await (await gw.admin('/api/logs?limit=5')).json()) as Array<
        Record<string, unknown>
      >;
      const row = rows.find((r) => r.modelRequested === 'coder');
      return Boolean(
        row &&
          row.clientFormat === 'openai-chat' &&
          row.target === 'oa/gpt-test' &&
          row.connection === 'oa-1' &&
          row.status === 200 &&
          typeof row.latencyMs === 'number' &&
          typeof row.ttfbMs === 'number' &&
          typeof row.inputTokens === 'number' &&
          typeof row.outputTokens === 'number',
      );
    });
  });
});
