// Proves the fake upstream speaks each wire format well enough for the official SDKs, and that
// its scripted failures (errors, resets, stalls) behave as the resilience tests will rely on.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY_TEXT, type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';

let fake: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  fake = await startFakeUpstream({ models: ['gpt-fake', 'claude-fake'] });
  openai = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: fake.url, apiKey: 'sk-ant-test', maxRetries: 0 });
});

afterEach(() => {
  fake.reset();
});

afterAll(async () => {
  await fake.close();
});

const chatParams = { model: 'gpt-fake', messages: [{ role: 'user' as const, content: 'hi' }] };
const msgParams = {
  model: 'claude-fake',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

describe('OpenAI Chat Completions', () => {
  it('answers non-streaming requests and records them', async () => {
    fake.script({ text: 'scripted reply', usage: { input: 11, output: 3 } });
    const res = await openai.chat.completions.create(chatParams);
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe('gpt-fake');
    expect(res.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'scripted reply' });
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });

    expect(fake.requests).toHaveLength(1);
    const rec = fake.requests[0]!;
    expect(rec).toMatchObject({ method: 'POST', path: '/v1/chat/completions', aborted: false });
    expect(rec.body.model).toBe('gpt-fake');
    expect(rec.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.parse(rec.rawBody)).toEqual(rec.body);
  });

  it('streams chunks, a finish chunk, a usage chunk and [DONE]', async () => {
    fake.script({ text: 'one two three four', chunks: 4, usage: { input: 5, output: 4 } });
    const stream = await openai.chat.completions.create({
      ...chatParams,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const contents = chunks.flatMap((c) =>
      c.choices[0]?.delta.content ? [c.choices[0].delta.content] : [],
    );
    expect(contents).toHaveLength(4);
    expect(contents.join('')).toBe('one two three four');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    expect(
      chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-fake'),
    ).toBe(true);
  });

  it('works without the /v1 prefix and sends a request id', async () => {
    const res = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatParams),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe(DEFAULT_REPLY_TEXT);
  });
});

describe('OpenAI Responses', () => {
  it('answers non-streaming requests', async () => {
    fake.script({ text: 'resp text', usage: { input: 7, output: 2 } });
    const res = await openai.responses.create({ model: 'gpt-fake', input: 'hi' });
    expect(res.id).toMatch(/^resp_/);
    expect(res.status).toBe('completed');
    expect(res.model).toBe('gpt-fake');
    expect(res.output_text).toBe('resp text');
    expect(res.usage).toMatchObject({
      input_tokens: 7,
      output_tokens: 2,
      total_tokens: 9,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('streams the real event sequence', async () => {
    fake.script({ text: 'abcdef', chunks: 3 });
    const stream = await openai.responses.create({ model: 'gpt-fake', input: 'hi', stream: true });
    const events = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) =>
      e.type === 'response.output_text.delta' ? [e.delta] : [],
    );
    expect(deltas.join('')).toBe('abcdef');
    const done = events.at(-1)!;
    if (done.type !== 'response.completed') throw new Error('expected response.completed');
    expect(done.response.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('satisfies the SDK stream helper accumulator', async () => {
    fake.script({ text: 'accumulated text' });
    const final = await openai.responses.stream({ model: 'gpt-fake', input: 'hi' }).finalResponse();
    expect(final.output_text).toBe('accumulated text');
    expect(final.status).toBe('completed');
  });
});

describe('Anthropic Messages', () => {
  it('answers non-streaming requests', async () => {
    fake.script({ text: 'claude says hi', usage: { input: 9, output: 4 } });
    const msg = await anthropic.messages.create(msgParams);
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.model).toBe('claude-fake');
    expect(msg.content).toEqual([{ type: 'text', text: 'claude says hi' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage).toMatchObject({
      input_tokens: 9,
      output_tokens: 4,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(fake.requests[0]?.path).toBe('/v1/messages');
    const h = fake.requests[0]!.headers;
    expect(h['anthropic-version']).toBeDefined();
    expect(`${h['x-api-key'] ?? ''} ${h.authorization ?? ''}`).toContain('sk-ant-test');
  });

  it('streams with create({stream:true}) and messages.stream()', async () => {
    fake.script({ text: 'streamed claude', chunks: 3, usage: { input: 4, output: 6 } }, {});
    const stream = await anthropic.messages.create({ ...msgParams, stream: true });
    const types: string[] = [];
    let text = '';
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
      if (e.type === 'message_delta') expect(e.usage.output_tokens).toBe(6);
    }
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(text).toBe('streamed claude');

    const final = await anthropic.messages.stream(msgParams).finalMessage();
    expect(final.content).toMatchObject([{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('counts tokens deterministically', async () => {
    const a = await anthropic.messages.countTokens(msgParams);
    const b = await anthropic.messages.countTokens(msgParams);
    expect(a.input_tokens).toBeGreaterThan(0);
    expect(b.input_tokens).toBe(a.input_tokens);
    expect(fake.requests[0]?.path).toBe('/v1/messages/count_tokens');
  });

  it('rejects its own bad input in Anthropic format', async () => {
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-fake', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
    });
  });
});

describe('models and errors', () => {
  it('lists the configurable models', async () => {
    const ids = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    expect(ids).toEqual(['gpt-fake', 'claude-fake']);
    fake.models.push('extra');
    const page = await openai.models.list();
    expect(page.data.map((m) => m.id)).toContain('extra');
    expect(page.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String) });
    fake.models.pop();
  });

  it('rejects bad JSON in OpenAI format without consuming a step', async () => {
    fake.script({ text: 'kept' });
    const res = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(typeof body.error.message).toBe('string');
    const ok = await openai.chat.completions.create(chatParams);
    expect(ok.choices[0]?.message.content).toBe('kept');
  });

  it('sends a scripted 503 with retry-after', async () => {
    fake.script({ status: 503, headers: { 'retry-after': '7' } });
    const err = await openai.chat.completions.create(chatParams).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const apiErr = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiErr.status).toBe(503);
    expect(apiErr.headers?.get('retry-after')).toBe('7');
    expect(apiErr.type).toBe('server_error');
    expect(fake.requests).toHaveLength(1);
  });

  it('sends scripted Anthropic errors and explicit bodies', async () => {
    fake.script(
      { status: 529 },
      {
        status: 429,
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } },
      },
    );
    const e1 = await anthropic.messages.create(msgParams).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(Anthropic.APIError);
    expect((e1 as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((e1 as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
    const e2 = await anthropic.messages.create(msgParams).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('reports a stream error event in each format', async () => {
    fake.script({ streamError: true }, { streamError: true });
    const chat = await openai.chat.completions.create({ ...chatParams, stream: true });
    await expect(
      (async () => {
        for await (const _ of chat) {
        }
      })(),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
    const msgs = await anthropic.messages.create({ ...msgParams, stream: true });
    await expect(
      (async () => {
        for await (const _ of msgs) {
        }
      })(),
    ).rejects.toThrow(/Overloaded/);
  });
});

describe('network failures', () => {
  it('resetBeforeHeaders produces a connection error', async () => {
    fake.script({ resetBeforeHeaders: true });
    const err = await openai.chat.completions.create(chatParams).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(fake.requests[0]?.aborted).toBe(false);
  });

  it('resetAfterChunks cuts a stream mid-way', async () => {
    fake.script({ text: 'abcdefghij', chunks: 5, resetAfterChunks: 2 });
    const stream = await openai.chat.completions.create({ ...chatParams, stream: true });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) got.push(c.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(got.join('')).toBe('abcd');
    expect(fake.requests[0]?.aborted).toBe(false);
  });

  it('records a stalled stream the client abandons as aborted', async () => {
    fake.script({ text: 'abcdefghij', chunks: 5, stallAfterChunks: 1 });
    const stream = await anthropic.messages.create({ ...msgParams, stream: true });
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      if (e.type === 'content_block_delta') break; // leaving the loop aborts the request
    }
    const rec = await fake.waitForAbort(2000);
    expect(rec.aborted).toBe(true);
    expect(rec.path).toBe('/v1/messages');
    expect(fake.requests[0]?.aborted).toBe(true);
    expect(fake.abortCount).toBe(1);
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });

  it('records a client that gives up during delayMs as aborted', async () => {
    fake.script({ delayMs: 2000 });
    const ac = new AbortController();
    const pending = openai.chat.completions
      .create(chatParams, { signal: ac.signal })
      .catch((e: unknown) => e);
    await fake.waitForRequests(1, 1000);
    ac.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    const rec = await fake.waitForAbort(1000);
    expect(rec.path).toBe('/v1/chat/completions');
  });

  it('resetAfterChunks truncates a non-streaming body', async () => {
    fake.script({ resetAfterChunks: 0 });
    const err = await anthropic.messages.create(msgParams).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(fake.requests[0]?.aborted).toBe(false);
  });

  it('waitForRequests resolves on arrival and times out otherwise', async () => {
    fake.script({ delayMs: 50 });
    const pending = openai.chat.completions.create(chatParams);
    await fake.waitForRequests(1, 1000);
    expect(fake.requestCount).toBe(1);
    await pending;
    await expect(fake.waitForRequests(2, 30)).rejects.toThrow(/waitForRequests/);
  });

  it('close() returns promptly with a stalled stream open', async () => {
    const own = await startFakeUpstream();
    own.script({ stallAfterChunks: 0, chunkDelayMs: 10 });
    const res = await fetch(`${own.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...chatParams, stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"role":"assistant"');
    const t0 = Date.now();
    await own.close();
    expect(Date.now() - t0).toBeLessThan(500);
    await expect(reader.read()).rejects.toThrow();
    expect(own.abortCount).toBe(0);
  });
});

describe('fast mode', () => {
  it('counts requests without recording them', async () => {
    const own = await startFakeUpstream({ fast: true });
    try {
      const client = new OpenAI({ baseURL: `${own.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const stream = await client.chat.completions.create({ ...chatParams, stream: true });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      expect(text).toBe(DEFAULT_REPLY_TEXT);
      expect(own.requestCount).toBe(1);
      expect(own.requests).toHaveLength(0);
    } finally {
      await own.close();
    }
  });

  it('stamps paced chunks with the monotonic clock at write time', async () => {
    const own = await startFakeUpstream({ fast: true });
    try {
      own.setDefault({ text: '§§§', chunks: 3, chunkDelayMs: 1, stampMarker: '§' });
      const client = new OpenAI({ baseURL: `${own.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const before = process.hrtime.bigint();
      const stream = await client.chat.completions.create({ ...chatParams, stream: true });
      const stamps: bigint[] = [];
      for await (const c of stream) {
        const content = c.choices[0]?.delta.content;
        if (content) stamps.push(BigInt(content));
      }
      const after = process.hrtime.bigint();
      expect(stamps).toHaveLength(3);
      for (const s of stamps) {
        expect(s > before && s < after).toBe(true);
      }
      expect(stamps[0]! < stamps[1]! && stamps[1]! < stamps[2]!).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe('the Gemini API', () => {
  const gemini = (
    method: string,
    body: unknown = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  ) =>
    fetch(`${fake.url}/v1beta/models/gemini-fake:${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' },
      body: JSON.stringify(body),
    });

  it('answers generateContent with candidates and usageMetadata as Google counts', async () => {
    fake.script({ text: 'hello', usage: { input: 10, output: 7, cached: 4, reasoning: 3 } });
    const res = await gemini('generateContent');
    expect(await res.json()).toMatchObject({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'hello' }] }, finishReason: 'STOP' },
      ],
      usageMetadata: {
        promptTokenCount: 10,
        candidatesTokenCount: 4,
        thoughtsTokenCount: 3,
        cachedContentTokenCount: 4,
        totalTokenCount: 17,
      },
      modelVersion: 'gemini-fake',
    });
    expect(fake.requests[0]?.headers['x-goog-api-key']).toBe('AIza-test');
  });

  it('streams text chunks, then the calls with the finish reason and the final counts', async () => {
    fake.script({
      text: 'abcdef',
      chunks: 3,
      toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1 } }],
    });
    const text = await (await gemini('streamGenerateContent?alt=sse')).text();
    const chunks = text
      .split('\n\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(chunks.map((c) => c.candidates[0].content.parts[0])).toEqual([
      { text: 'ab' },
      { text: 'cd' },
      { text: 'ef' },
      { functionCall: { id: 'c1', name: 'f', args: { a: 1 } } },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('sends scripted errors in Google’s shape, counts tokens and refuses a request without contents', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await gemini('generateContent');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(((await limited.json()) as { error: unknown }).error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
    });
    fake.script({ streamError: true });
    expect(await (await gemini('streamGenerateContent?alt=sse')).text()).toMatch(
      /^data: \{"error":\{"code":500,.*"status":"INTERNAL"/,
    );
    expect(await (await gemini('countTokens')).json()).toMatchObject({
      totalTokens: expect.any(Number),
    });
    const bad = await gemini('generateContent', {});
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: unknown }).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
  });
});
