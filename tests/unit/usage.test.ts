import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyUsage,
  GEMINI_USAGE_KEY,
  mergeUsage,
  SseUsageObserver,
  type Usage,
  usageOf,
  usageOfBody,
} from '../../src/main/engine/usage/usage';

function merged(...values: unknown[]): Usage {
  const usage = emptyUsage();
  for (const v of values) mergeUsage(usage, v);
  return usage;
}

function sse(events: { event?: string; data: unknown }[], eol = '\n'): Buffer {
  const text = events
    .map((e) => {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      return `${e.event ? `event: ${e.event}${eol}` : ''}data: ${data}${eol}${eol}`;
    })
    .join('');
  return Buffer.from(text, 'utf8');
}

/** A Chat Completions stream with `stream_options.include_usage`: usage null until the last chunk. */
const CHAT_STREAM = sse([
  {
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' } }],
      usage: null,
    },
  },
  {
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'Héllo wörld, 世界 🌊' } }],
      usage: null,
    },
  },
  {
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'the word "usage" in text' } }],
      usage: null,
    },
  },
  {
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: null,
    },
  },
  {
    data: {
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 37,
        total_tokens: 157,
        prompt_tokens_details: { cached_tokens: 64 },
      },
    },
  },
  { data: '[DONE]' },
]);

/** A Responses API stream: usage arrives inside `response.completed`. */
const RESPONSES_STREAM = sse([
  {
    event: 'response.created',
    data: { type: 'response.created', response: { id: 'r1', status: 'in_progress', usage: null } },
  },
  {
    event: 'response.output_text.delta',
    data: { type: 'response.output_text.delta', delta: 'Grüße 🌍 ' },
  },
  {
    event: 'response.output_text.delta',
    data: { type: 'response.output_text.delta', delta: 'done' },
  },
  {
    event: 'response.completed',
    data: {
      type: 'response.completed',
      response: {
        id: 'r1',
        status: 'completed',
        usage: {
          input_tokens: 300,
          input_tokens_details: { cached_tokens: 256 },
          output_tokens: 12,
          total_tokens: 312,
        },
      },
    },
  },
]);

/** An Anthropic Messages stream: input tokens in message_start, output tokens in message_delta. */
const ANTHROPIC_STREAM = sse([
  {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: 'm1',
        type: 'message',
        role: 'assistant',
        content: [],
        usage: {
          input_tokens: 2095,
          cache_read_input_tokens: 1800,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    },
  },
  {
    event: 'content_block_start',
    data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  },
  { event: 'ping', data: { type: 'ping' } },
  {
    event: 'content_block_delta',
    data: {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Ça va? 日本語' },
    },
  },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
  {
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 503 },
    },
  },
  { event: 'message_stop', data: { type: 'message_stop' } },
]);

const STREAMS: [string, Buffer, Usage][] = [
  [
    'Chat Completions',
    CHAT_STREAM,
    {
      inputTokens: 120,
      outputTokens: 37,
      cachedTokens: 64,
      cacheWriteTokens: null,
      reasoningTokens: null,
    },
  ],
  [
    'Responses',
    RESPONSES_STREAM,
    {
      inputTokens: 300,
      outputTokens: 12,
      cachedTokens: 256,
      cacheWriteTokens: null,
      reasoningTokens: null,
    },
  ],
  [
    'Anthropic Messages',
    ANTHROPIC_STREAM,
    {
      inputTokens: 2095,
      outputTokens: 503,
      cachedTokens: 1800,
      cacheWriteTokens: 0,
      reasoningTokens: null,
      cacheApart: true,
    },
  ],
];

function observe(chunks: Buffer[]): Usage {
  const observer = new SseUsageObserver();
  for (const chunk of chunks) observer.push(chunk);
  return observer.usage;
}

describe('usage is read from each format’s usage object', () => {
  it('Chat Completions: prompt/completion tokens, cached from prompt_tokens_details', () => {
    expect(
      merged({
        prompt_tokens: 10,
        completion_tokens: 20,
        total_tokens: 30,
        prompt_tokens_details: { cached_tokens: 4 },
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 20,
      cachedTokens: 4,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
  });

  it('Responses: input/output tokens, cached from input_tokens_details', () => {
    expect(
      merged({
        input_tokens: 11,
        output_tokens: 22,
        input_tokens_details: { cached_tokens: 5 },
        output_tokens_details: { reasoning_tokens: 3 },
      }),
    ).toEqual({
      inputTokens: 11,
      outputTokens: 22,
      cachedTokens: 5,
      cacheWriteTokens: null,
      reasoningTokens: 3,
    });
  });

  it('Anthropic: input/output tokens, cached from cache_read_input_tokens', () => {
    expect(
      merged({
        input_tokens: 12,
        output_tokens: 23,
        cache_read_input_tokens: 6,
        cache_creation_input_tokens: 100,
      }),
    ).toEqual({
      inputTokens: 12,
      outputTokens: 23,
      cachedTokens: 6,
      cacheWriteTokens: 100,
      reasoningTokens: null,
      cacheApart: true,
    });
  });

  it('what the upstream did not say stays null', () => {
    expect(merged({ prompt_tokens: 10 })).toEqual({
      inputTokens: 10,
      outputTokens: null,
      cachedTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(merged({})).toEqual(emptyUsage());
  });

  it('non-objects and non-numbers are ignored', () => {
    expect(
      merged(null, undefined, 'usage', 42, { prompt_tokens: '10', completion_tokens: Number.NaN }),
    ).toEqual(emptyUsage());
  });
});

describe('Anthropic streams: message_start then message_delta merge into one usage', () => {
  it('input and cache from message_start, output from message_delta', () => {
    const start = {
      type: 'message_start',
      message: { usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 10 } },
    };
    const delta = {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 42 },
    };
    expect(merged(usageOf(start), usageOf(delta))).toEqual({
      inputTokens: 25,
      outputTokens: 42,
      cachedTokens: 10,
      cacheWriteTokens: null,
      reasoningTokens: null,
      cacheApart: true,
    });
  });

  it('a later report replaces only the fields it carries', () => {
    const usage = merged(
      { input_tokens: 25, cache_read_input_tokens: 10 },
      { output_tokens: 42 },
      { input_tokens: 26 },
    );
    expect(usage).toEqual({
      inputTokens: 26,
      outputTokens: 42,
      cachedTokens: 10,
      cacheWriteTokens: null,
      reasoningTokens: null,
      cacheApart: true,
    });
  });
});

describe('usageOf finds the usage of a whole response or of one stream event', () => {
  it('top-level usage (Chat, Anthropic message_delta, whole responses)', () => {
    expect(usageOf({ usage: { prompt_tokens: 1 } })).toEqual({ prompt_tokens: 1 });
  });

  it('response.usage (Responses events) and message.usage (Anthropic message_start)', () => {
    expect(
      usageOf({ type: 'response.completed', response: { usage: { input_tokens: 2 } } }),
    ).toEqual({ input_tokens: 2 });
    expect(usageOf({ type: 'message_start', message: { usage: { input_tokens: 3 } } })).toEqual({
      input_tokens: 3,
    });
  });

  it('nothing when the event carries no usage', () => {
    expect(usageOf({ type: 'ping' })).toBeUndefined();
  });
});

describe('SseUsageObserver: watches a relayed SSE stream for usage', () => {
  for (const [name, stream, expected] of STREAMS) {
    it(`${name}: the whole stream in one chunk`, () => {
      expect(observe([stream])).toEqual(expected);
    });

    it(`${name}: one byte at a time`, () => {
      const bytes = [...stream].map((b) => Buffer.from([b]));
      expect(observe(bytes)).toEqual(expected);
    });
  }

  it('CRLF line endings', () => {
    const stream = sse(
      [{ data: { usage: { input_tokens: 7, output_tokens: 8 } } }, { data: '[DONE]' }],
      '\r\n',
    );
    expect(observe([stream])).toEqual({ ...emptyUsage(), inputTokens: 7, outputTokens: 8 });
  });

  it('"data:" without a space', () => {
    expect(observe([Buffer.from('data:{"usage":{"prompt_tokens":3}}\n\n')]).inputTokens).toBe(3);
  });

  it('[DONE], comments, event lines and data lines without usage are ignored', () => {
    const stream = Buffer.from(
      [
        ': keep-alive',
        'event: usage',
        'data: [DONE]',
        'data: {"choices":[{"delta":{"content":"x"}}]}',
        'data: {"usage":null}',
        'data: not json but mentions "usage"',
        'id: 7',
        '',
        '',
      ].join('\n'),
    );
    expect(observe([stream])).toEqual(emptyUsage());
  });

  it('a line is counted only once its newline has arrived', () => {
    const observer = new SseUsageObserver();
    observer.push(Buffer.from('data: {"usage":{"prompt_tokens":9}}'));
    expect(observer.usage.inputTokens).toBeNull();
    observer.push(Buffer.from('\n\n'));
    expect(observer.usage.inputTokens).toBe(9);
  });

  it('any split of a real SSE byte stream yields the same usage as one chunk', () => {
    const streamArb = fc.constantFrom(...STREAMS);
    const splitArb = streamArb.chain(([, stream, expected]) =>
      fc
        .uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 40 })
        .map((cuts) => ({ stream, expected, cuts: cuts.sort((a, b) => a - b) })),
    );
    fc.assert(
      fc.property(splitArb, ({ stream, expected, cuts }) => {
        const bounds = [0, ...cuts, stream.length];
        const chunks = bounds.slice(1).map((end, i) => stream.subarray(bounds[i]!, end));
        expect(observe(chunks)).toEqual(expected);
        expect(observe(chunks)).toEqual(observe([stream]));
      }),
      { numRuns: 300 },
    );
  });
});

/** Cuts bytes at the given positions (any position, mid-character included). */
function splitBytes(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const bounds = [0, ...points, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i]!, end));
}

/** The plain reading: the whole stream split into lines, each `data:` line naming "usage" parsed. */
function referenceUsage(text: string): Usage {
  const usage = emptyUsage();
  // The last piece has no newline yet, so it is no line.
  for (const line of text.split('\n').slice(0, -1)) {
    if (!line.startsWith('data:') || !line.includes('"usage"')) continue;
    try {
      mergeUsage(usage, usageOf(JSON.parse(line.slice(5))));
    } catch {
      // Not JSON, or JSON without a usage: nothing to count.
    }
  }
  return usage;
}

const content = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  // Text that puts the bytes `"usage"` inside a string, or looks like an event of its own.
  fc.constantFrom(
    'say "usage',
    '"usage":null',
    'usage',
    '\u0007 bell',
    '\ndata: {"usage":{"prompt_tokens":1}}\n',
  ),
);
const count = fc.nat({ max: 100_000 });
const chatUsage = fc.record(
  {
    prompt_tokens: count,
    completion_tokens: count,
    prompt_tokens_details: fc.record({ cached_tokens: count }),
  },
  { requiredKeys: [] },
);
const responsesUsage = fc.record(
  {
    input_tokens: count,
    output_tokens: count,
    input_tokens_details: fc.record({ cached_tokens: count }),
  },
  { requiredKeys: [] },
);
const anthropicUsage = fc.record(
  { input_tokens: count, output_tokens: count, cache_read_input_tokens: count },
  { requiredKeys: [] },
);
const data = (value: unknown): string => `data: ${JSON.stringify(value)}`;

/** One SSE event as its lines, in the shapes the three formats send, plus near misses. */
const eventLines = fc.oneof(
  fc
    .record({
      content,
      usage: fc.option(chatUsage, { nil: null }),
      extra: fc.dictionary(content, fc.constant(null)),
    })
    .map(({ content, usage, extra }) => [
      data({ ...extra, object: 'chat.completion.chunk', choices: [{ delta: { content } }], usage }),
    ]),
  fc
    .record({ usage: fc.option(responsesUsage, { nil: null }) })
    .map(({ usage }) => [
      'event: response.completed',
      data({ type: 'response.completed', response: { id: 'r', usage } }),
    ]),
  content.map((delta) => [
    'event: response.output_text.delta',
    data({ type: 'response.output_text.delta', delta }),
  ]),
  anthropicUsage.map((usage) => [
    'event: message_start',
    data({ type: 'message_start', message: { id: 'm', usage } }),
  ]),
  anthropicUsage.map((usage) => [
    'event: message_delta',
    `data:${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage })}`,
  ]),
  content.map((text) => [
    'event: content_block_delta',
    data({ type: 'content_block_delta', delta: { type: 'text_delta', text } }),
  ]),
  // A key only JSON.parse reads as `usage`, beside a `"usage":null` a byte scan does see.
  responsesUsage.map((usage) => [
    `data: {"a":{"usage":null},"response":{"\\u0075sage":${JSON.stringify(usage)}}}`,
  ]),
  chatUsage.map((usage) => [`data: {"usage":null,"usage":${JSON.stringify(usage)}}`]),
  chatUsage.map((usage) => [
    `data: {"usage" : null, "message": {"usage": ${JSON.stringify(usage)}}}`,
  ]),
  fc.constantFrom<string[]>(
    ['data: [DONE]'],
    [': keep-alive'],
    [': "usage"'],
    ['event: usage', 'id: 7'],
    ['data: {"usage":nullish}'],
    ['data: not json but mentions "usage"'],
    ['data: {"usage":null}'],
  ),
);

const streamArb = fc
  .record({
    events: fc.array(fc.record({ lines: eventLines, eol: fc.constantFrom('\n', '\r\n') }), {
      maxLength: 30,
    }),
    tail: fc.constantFrom('', 'data: {"usage":{"prompt_tokens":999}}', 'data: {"us'),
    cuts: fc.array(fc.nat(), { maxLength: 40 }),
  })
  .map(({ events, tail, cuts }) => {
    const text =
      events.map(({ lines, eol }) => lines.map((l) => l + eol).join('') + eol).join('') + tail;
    return { text, chunks: splitBytes(Buffer.from(text, 'utf8'), cuts) };
  });

describe('SseUsageObserver reads what a plain line-by-line reading reads', () => {
  it('for any mix of Chat, Responses and Anthropic events, line endings and chunk cuts', () => {
    fc.assert(
      fc.property(streamArb, ({ text, chunks }) => {
        expect(observe(chunks)).toEqual(referenceUsage(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('push returns where a plain search finds the first `usage"` that `:null` does not follow', () => {
    // In the lines a chunk completes: 0 when it is in the line the chunk finishes.
    const firstNotNull = (text: string): number => {
      for (let at = text.indexOf('usage"'); at !== -1; at = text.indexOf('usage"', at + 1)) {
        if (!text.startsWith(':null', at + 6)) return at;
      }
      return -1;
    };
    fc.assert(
      fc.property(streamArb, ({ chunks }) => {
        const observer = new SseUsageObserver();
        let partial = '';
        for (const chunk of chunks) {
          const bytes = chunk.toString('latin1');
          const lastNl = bytes.lastIndexOf('\n');
          let expected = -1;
          if (lastNl !== -1) {
            const nl = bytes.indexOf('\n');
            const finished = partial === '' ? -1 : firstNotNull(partial + bytes.slice(0, nl));
            const from = partial === '' ? 0 : nl + 1;
            const inChunk = firstNotNull(bytes.slice(from, lastNl));
            expected = finished !== -1 ? 0 : inChunk === -1 ? -1 : from + inChunk;
            partial = bytes.slice(lastNl + 1);
          } else partial += bytes;
          expect(observer.push(chunk)).toBe(expected);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a `\\u`-escaped usage key next to `"usage":null` is still counted', () => {
    const line = 'data: {"a":{"usage":null},"response":{"\\u0075sage":{"input_tokens":4}}}\n';
    expect(observe([Buffer.from(line)]).inputTokens).toBe(4);
  });

  it('push returns the first `usage"` that `:null` does not follow, past every null one', () => {
    const nulls = 'data: {"usage":null}\n\n'.repeat(50);
    const chunk = Buffer.from(`${nulls}data: {"type":"usage","usage":{"prompt_tokens":3}}\n\n`);
    const observer = new SseUsageObserver();
    expect(observer.push(chunk)).toBe(chunk.indexOf('usage",'));
    expect(observer.usage.inputTokens).toBe(3);
    expect(new SseUsageObserver().push(Buffer.from(nulls))).toBe(-1);
  });

  it('CRLF: the carriage return before the newline does not stop the parse', () => {
    expect(observe([Buffer.from('data: {"usage":{"prompt_tokens":6}}\r\n')]).inputTokens).toBe(6);
  });
});

describe('usageOfBody reads what usageOf(JSON.parse(body)) reads', () => {
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
  const usage = fc.oneof(
    fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat() }),
    fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat() }),
    fc.constant(null),
  );
  // Keys include "usage" itself (nested ones must not count), its escaped spelling and the
  // wrappers usageOf looks into.
  const key = fc.oneof(
    fc.string(),
    fc.constantFrom('usage', 'response', 'message', 'choices', 'content'),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, scalar, usage, tie('array'), tie('object')),
    array: fc.array(tie('node'), { maxLength: 3 }),
    object: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  })).object;

  /** JSON text of `v`, with `"usage"` keys sometimes spelled with an escape. */
  const render = (v: unknown, escaped: boolean, space: string): string =>
    JSON.stringify(v, null, space).replace(/"usage":/g, escaped ? '"\\u0075sage":' : '"usage":');

  it('for any answer shape, spacing and key spelling', () => {
    fc.assert(
      fc.property(value, fc.boolean(), fc.constantFrom('', ' ', '\t'), (v, escaped, space) => {
        const text = render(v, escaped, space);
        const expected = usageOf(JSON.parse(text) as Record<string, unknown>);
        expect(usageOfBody(Buffer.from(text))).toStrictEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('takes the last of a repeated top-level usage, as JSON.parse does', () => {
    const text =
      '{"usage":{"input_tokens":1},"x":[{"usage":{"input_tokens":9}}],"usage":{"input_tokens":2}}';
    expect(usageOfBody(Buffer.from(text))).toEqual({ input_tokens: 2 });
  });

  it('is undefined for an answer that is not JSON', () => {
    expect(usageOfBody(Buffer.from('<html>busy</html>'))).toBeUndefined();
    expect(usageOfBody(Buffer.from('{"usage": '))).toBeUndefined();
  });

  it('counts the usage a malformed answer ends with, as its last top-level member', () => {
    const usage = { input_tokens: 3 };
    for (const body of ['{}{"usage":{"input_tokens":3}}', '{,"usage":{"input_tokens":3}}']) {
      expect(usageOfBody(Buffer.from(body)), body).toEqual(usage);
    }
    expect(usageOfBody(Buffer.from('{"usage":{"input_tokens":3}} and then'))).toBeUndefined();
  });
});

describe('Gemini usageMetadata (a Gemini provider relayed as it is)', () => {
  // Google's fixture numbers: the prompt count includes the cached part, the candidates count
  // leaves out the thoughts.
  const FINAL = {
    promptTokenCount: 80,
    candidatesTokenCount: 25,
    totalTokenCount: 117,
    cachedContentTokenCount: 32,
    thoughtsTokenCount: 12,
  };
  const EXPECTED: Usage = {
    inputTokens: 80,
    outputTokens: 37,
    cachedTokens: 32,
    cacheWriteTokens: null,
    reasoningTokens: 12,
  };
  const chunk = (parts: unknown[], usageMetadata: unknown) => ({
    data: { candidates: [{ content: { role: 'model', parts }, index: 0 }], usageMetadata },
  });
  const STREAM = sse([
    chunk([{ text: 'Both ', thought: true }], { promptTokenCount: 80, totalTokenCount: 80 }),
    chunk([{ text: 'Checking ' }], { promptTokenCount: 80, totalTokenCount: 80 }),
    chunk([{ text: 'both.' }], FINAL),
  ]);

  it('a whole answer: only the usageMetadata member is read', () => {
    const body = Buffer.from(
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: 'hi' }] } }],
        usageMetadata: FINAL,
      }),
    );
    expect(merged(usageOfBody(body, GEMINI_USAGE_KEY))).toEqual(EXPECTED);
    expect(merged(usageOf(JSON.parse(body.toString())))).toEqual(EXPECTED);
  });

  it('a stream, whole and a byte at a time: the last running count wins', () => {
    const whole = new SseUsageObserver(GEMINI_USAGE_KEY);
    whole.push(STREAM);
    expect(whole.usage).toEqual(EXPECTED);
    const bytes = new SseUsageObserver(GEMINI_USAGE_KEY);
    for (const b of STREAM) bytes.push(Buffer.from([b]));
    expect(bytes.usage).toEqual(EXPECTED);
  });

  it('reads what a plain line-by-line reading reads, for any mix of look-alikes and cuts', () => {
    const counts = fc.record(
      { promptTokenCount: fc.nat(1000), candidatesTokenCount: fc.nat(1000) },
      { requiredKeys: [] },
    );
    const text = fc.oneof(fc.string(), fc.constantFrom('adata"', 'usageMetadata"', 'Metadata'));
    const line = fc.oneof(
      fc
        .tuple(text, counts)
        .map(
          ([t, u]) =>
            `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: t }] } }], usageMetadata: u })}`,
        ),
      counts.map((u) => `data: {"metadata":${JSON.stringify(u)},"x":"usageMetadata"}`),
      counts.map((u) => `data: {"xusageMetadata":${JSON.stringify(u)}}`),
      counts.map((u) => `data: {"usageMetadata" : ${JSON.stringify(u)}}`),
      fc.constantFrom('data: {"usageMetadata":null}', ': adata"', 'data: [DONE]'),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, cuts) => {
          const all = lines.map((l) => `${l}\n\n`).join('');
          const want = emptyUsage();
          for (const l of all.split('\n')) {
            if (!l.startsWith('data:') || !l.includes('"usageMetadata"')) continue;
            try {
              mergeUsage(want, usageOf(JSON.parse(l.slice(5))));
            } catch {
              // Not JSON: nothing to count.
            }
          }
          const observer = new SseUsageObserver(GEMINI_USAGE_KEY);
          for (const c of splitBytes(Buffer.from(all, 'utf8'), cuts)) observer.push(c);
          expect(observer.usage).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the default observer does not look for it (other formats pay nothing for it)', () => {
    expect(observe([STREAM])).toEqual(emptyUsage());
  });

  it('an answer without thoughts or cache counts its candidates only', () => {
    expect(merged({ promptTokenCount: 5, candidatesTokenCount: 3 })).toEqual({
      ...emptyUsage(),
      inputTokens: 5,
      outputTokens: 3,
    });
  });
});
