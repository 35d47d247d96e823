import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, EngineEvent, RequestLogEntry } from '../../src/shared/contract';
import { FULL, readAnswer, readerProviders } from '../support/continuation-clients';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import {
  ANTHROPIC_KEY,
  eventually,
  fakeProvider,
  OPENAI_KEY,
  startGateway,
  type TestGateway,
} from '../support/gateway';

// Issue 28: a stream cut after text reached the client is finished by a continuation request;
// the client's SDK reads one whole answer. Providers of the three upstream kinds on one fake.
function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      ...readerProviders(primary),
      fakeProvider('gm', 'gemini', primary, ['gemini-test'], 'gm-test-key-0123456789'),
      fakeProvider('bk', 'anthropic', backup, ['claude-backup'], ANTHROPIC_KEY),
      // Providers that turned the gateway's prompt-cache help off get translations of their own.
      {
        ...fakeProvider('oanc', 'openai', primary, ['gpt-nc'], OPENAI_KEY),
        promptCache: { cacheKey: false },
      },
      {
        ...fakeProvider('annc', 'anthropic', primary, ['claude-nc'], ANTHROPIC_KEY),
        promptCache: { breakpoints: false },
      },
    ],
    combos: [
      { name: 'pair', strategy: 'priority', targets: ['an/claude-test', 'bk/claude-backup'] },
    ],
  };
}

let gw: TestGateway;
const events: EngineEvent[] = [];
const TARGETS = ['oa/gpt-test', 'an/claude-test', 'gm/gemini-test'] as const;

beforeAll(async () => {
  gw = await startGateway({
    config: (primary, backup) => config(primary, backup),
    env: { BREAKWATER_STREAM_CONTINUATION: process.env.OFF ? 'false' : 'true' },
  });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  events.length = 0;
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

describe('a provider with its prompt-cache help off', () => {
  for (const client of ['chat', 'anthropic'] as const) {
    for (const target of ['oanc/gpt-nc', 'annc/claude-nc'] as const) {
      it(`${client} client, ${target}: the continuation carries the partial answer`, async () => {
        cutThenFinish({ resetAfterChunks: 7 });
        const { text, stops } = await readAnswer(gw.url, client, target);
        expect(text).toBe(FULL);
        expect(stops).toHaveLength(1);
        expect(gw.primary.requests).toHaveLength(2);
        const partial = FULL.match(/(\s*\S+\s*){7}/)![0].trimEnd();
        expect(JSON.stringify(gw.primary.requests[1]!.body)).toContain(partial);
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

async function lastRow(): Promise<RequestLogEntry> {
  const rows = () =>
    events.flatMap((e) => (e.type === 'request.completed' ? [e.entry as RequestLogEntry] : []));
  await eventually(() => rows().length >= 1);
  return rows().at(-1)!;
}

describe('bounded and explained', () => {
  it('an error event moves the continuation to the next candidate; event, log row and attempts say so', async () => {
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'requestLog.captureBodies': 'all' }),
    });
    try {
      gw.primary.script({
        text: FULL,
        byWords: true,
        errorAfterChunks: 11,
        usage: { input: 30, output: 11 },
      });
      gw.backup.script({ finish: { text: FULL }, byWords: true, usage: { input: 50, output: 20 } });
      const { text } = await readAnswer(gw.url, 'anthropic', 'pair');
      expect(text).toBe(FULL);
      expect(gw.primary.requests).toHaveLength(1);
      expect(gw.backup.requests).toHaveLength(1);
      const continued = events.find((e) => e.type === 'stream.continued');
      const partial = FULL.match(/(\s*\S+\s*){11}/)![0];
      expect(continued).toMatchObject({
        provider: 'bk',
        connection: 'bk-1',
        model: 'claude-backup',
        cutTarget: 'an/claude-test',
        reason: 'upstream_stream_error',
        chars: partial.length,
        continuation: 1,
      });
      const row = await lastRow();
      expect(row).toMatchObject({ status: 200, errorClass: null });
      expect(row.decision).toContain(
        `stream continued on bk/claude-backup (continuation 1, cut upstream_stream_error after ${partial.length} chars at an/claude-test)`,
      );
      // One usage adding both calls.
      expect(row.inputTokens).toBe(80);
      // The cut call's final count never came: its output is estimated from its text.
      expect(row.outputTokens).toBe(Math.ceil(partial.length / 4) + 20);
      const detail = (await (await gw.admin(`/api/logs/${row.id}`)).json()) as {
        attempts: { target: string; status: number }[];
      };
      expect(detail.attempts.map((a) => a.target)).toEqual(['an/claude-test', 'bk/claude-backup']);
    } finally {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'requestLog.captureBodies': null }),
      });
    }
  });

  it('switched off, a cut ends the stream with its error event and nothing is asked again', async () => {
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'streamContinuation.enabled': false }),
    });
    try {
      cutThenFinish({ resetAfterChunks: 9 });
      await expect(readAnswer(gw.url, 'chat', 'an/claude-test')).rejects.toThrow();
      expect(gw.primary.requests).toHaveLength(1);
    } finally {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'streamContinuation.enabled': null }),
      });
    }
  });

  it('bad settings get a clear error', async () => {
    const res = await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'streamContinuation.maxContinuations': 0 }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('streamContinuation.maxContinuations');
  });
});

describe('a stream that ends without its stop reason is continued', () => {
  const sse = (event: string, data: unknown) =>
    `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const words = FULL.split(' ');
  const partial = `${words.slice(0, 8).join(' ')} `;
  // An Anthropic stream that ends cleanly after some text: no message_delta, no message_stop.
  const early =
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_early',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    }) +
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }) +
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: partial },
    });

  for (const client of ['anthropic', 'chat'] as const) {
    it(`${client} client of an Anthropic upstream`, async () => {
      gw.primary.script({ body: early }, { finish: { text: FULL }, byWords: true });
      const { text, stops } = await readAnswer(gw.url, client, 'an/claude-test');
      expect(text).toBe(FULL);
      expect(stops).toHaveLength(1);
      const row = await lastRow();
      expect(row.decision).toContain('cut upstream_stream_incomplete after');
    });
  }
});

describe('a throughput-watchdog cut after commit is continued on the next candidate', () => {
  const SMALL = {
    'streamRecovery.throughputWatchdog': true,
    'streamRecovery.warmupMs': 300,
    'streamRecovery.windowMs': 500,
    'streamRecovery.minBytesPerSecond': 200,
    'streamRecovery.minMeasurableBytes': 50,
  };
  for (const client of ['anthropic', 'chat'] as const) {
    it(`${client} client`, async () => {
      gw.engine.admin.updateResilienceSettings(SMALL);
      try {
        gw.primary.script({ text: FULL, byWords: true, chunkDelayMs: 60 });
        gw.backup.script({ finish: { text: FULL }, byWords: true });
        const { text, stops } = await readAnswer(gw.url, client, 'pair');
        expect(text).toBe(FULL);
        expect(stops).toHaveLength(1);
        expect(gw.backup.requests).toHaveLength(1);
        expect(events.find((e) => e.type === 'stream.continued')).toMatchObject({
          provider: 'bk',
          reason: 'throughput_watchdog',
        });
      } finally {
        gw.engine.admin.updateResilienceSettings({
          'streamRecovery.throughputWatchdog': false,
        });
      }
    });
  }
});

describe('thinking is never replayed', () => {
  const sse = (event: string, data: unknown) =>
    `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  it('a cut inside thinking whose signature never arrived ends with a clear error event', async () => {
    const body =
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_think',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }) +
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }) +
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: 'First, ' },
      }) +
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      sse('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'thinking', thinking: '' },
      }) +
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'thinking_delta', thinking: 'Let me think' },
      });
    gw.primary.script({ body }, { finish: { text: FULL } });
    await expect(readAnswer(gw.url, 'anthropic', 'an/claude-test')).rejects.toThrow(
      /broke off|incomplete|stop reason/,
    );
    expect(gw.primary.requests).toHaveLength(1);
    const row = await lastRow();
    expect(row.decision).toContain(
      'stream not continued (the cut fell inside thinking whose signature never arrived)',
    );
  });
});
