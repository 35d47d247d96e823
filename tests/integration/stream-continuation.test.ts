import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
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

describe('a seamless stream', () => {
  it('a continuation that repeats the last three words shows them once', async () => {
    for (const client of ['chat', 'anthropic', 'responses', 'gemini'] as const) {
      gw.primary.reset();
      cutThenFinish({ resetAfterChunks: 12 }, { finish: { text: FULL, repeatWords: 3 } });
      const { text } = await readAnswer(gw.url, client, 'oa/gpt-test');
      expect(text).toBe(FULL);
    }
  });

  it('the continuation request carries the partial answer in its upstream form', async () => {
    const partial = FULL.match(/(\s*\S+\s*){7}/)![0];
    cutThenFinish({ resetAfterChunks: 7 });
    await readAnswer(gw.url, 'chat', 'an/claude-test');
    const anthropicBody = gw.primary.requests[1]!.body;
    // Anthropic: a prefilled assistant turn, without trailing white space, no thinking.
    expect(anthropicBody.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: partial.trimEnd() }],
    });
    expect(anthropicBody.thinking).toBeUndefined();
    gw.primary.reset();
    cutThenFinish({ resetAfterChunks: 7 });
    await readAnswer(gw.url, 'anthropic', 'oa/gpt-test');
    // Chat: the partial answer as an assistant message, then the instruction to go on.
    const chat = gw.primary.requests[1]!.body.messages;
    expect(chat.at(-2)).toMatchObject({ role: 'assistant', content: partial });
    expect(chat.at(-1).role).toBe('user');
    expect(chat.at(-1).content).toMatch(/exactly where it stopped/);
  });

  it('an error event inside the 200 stream is continued', async () => {
    for (const client of ['chat', 'anthropic', 'responses'] as const) {
      gw.primary.reset();
      cutThenFinish({ errorAfterChunks: 10 });
      const { text, stops } = await readAnswer(gw.url, client, 'an/claude-test');
      expect(text).toBe(FULL);
      expect(stops).toHaveLength(1);
    }
    gw.primary.reset();
    cutThenFinish({ errorAfterChunks: 10 });
    expect((await readAnswer(gw.url, 'anthropic', 'an/claude-test')).text).toBe(FULL);
  });

  it('a stall past the idle timeout is continued', async () => {
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'timeouts.idleMs': 300 }),
    });
    try {
      cutThenFinish({ stallAfterChunks: 8 });
      const { text } = await readAnswer(gw.url, 'anthropic', 'oa/gpt-test');
      expect(text).toBe(FULL);
    } finally {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'timeouts.idleMs': null }),
      });
    }
  });

  it('a continuation cut again is continued again, within maxContinuations', async () => {
    gw.primary.script(
      { text: FULL, byWords: true, resetAfterChunks: 5 },
      { finish: { text: FULL }, byWords: true, resetAfterChunks: 6 },
      { finish: { text: FULL }, byWords: true },
    );
    expect((await readAnswer(gw.url, 'responses', 'oa/gpt-test')).text).toBe(FULL);
    expect(gw.primary.requests).toHaveLength(3);
  });

  it('past maxContinuations the stream ends with its error event, as without continuation', async () => {
    gw.primary.script(
      { text: FULL, byWords: true, resetAfterChunks: 5 },
      { finish: { text: FULL }, byWords: true, resetAfterChunks: 3 },
      { finish: { text: FULL }, byWords: true, resetAfterChunks: 3 },
      { finish: { text: FULL }, byWords: true },
    );
    await expect(readAnswer(gw.url, 'anthropic', 'oa/gpt-test')).rejects.toThrow(
      /upstream_stream_interrupted|broke off/,
    );
    expect(gw.primary.requests).toHaveLength(3);
  });
});

describe('tool calls are never replayed: held until complete', () => {
  const call = { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } };
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ];

  it('a cut inside a tool call’s arguments gives a Chat client exactly one whole call', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'any', maxRetries: 0 });
    gw.primary.script(
      { text: 'Let me look that up.', toolCalls: [call], chunks: 4, resetAfterChunks: 3 },
      { finish: { text: 'Let me look that up.' }, toolCalls: [call], chunks: 4 },
    );
    const stream = openai.chat.completions.stream({
      model: 'an/claude-test',
      stream: true,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    let starts = 0;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) if (tc.id) starts++;
    }
    const done = await stream.finalChatCompletion();
    const msg = done.choices[0]!.message;
    expect(msg.content).toBe('Let me look that up.');
    expect(msg.tool_calls).toHaveLength(1);
    expect(starts).toBe(1);
    const fn = msg.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(JSON.parse(fn.function.arguments)).toEqual(call.arguments);
    expect(gw.primary.requests).toHaveLength(2);
  });

  it('an Anthropic client gets one whole tool_use block, even with no text before it', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'any', maxRetries: 0 });
    gw.primary.script(
      { toolCalls: [call], chunks: 4, resetAfterChunks: 2 },
      { toolCalls: [call], chunks: 4 },
    );
    const stream = anthropic.messages.stream({
      model: 'oa/gpt-test',
      max_tokens: 200,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const done = await stream.finalMessage();
    const uses = done.content.filter((b) => b.type === 'tool_use');
    expect(uses).toHaveLength(1);
    expect(uses[0]).toMatchObject({ name: 'get_weather', input: call.arguments });
    expect(done.stop_reason).toBe('tool_use');
  });
});
