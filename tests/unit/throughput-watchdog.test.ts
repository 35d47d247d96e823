import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyStreamEvent,
  ThroughputWatchdog,
  WatchdogFeed,
  watchdogOptions,
} from '../../src/main/engine/resilience/stream/throughput-watchdog';
import type { ThroughputWatchdogOptions } from '../../src/main/engine/settings/resilience-defaults';
import type { ClientFormat } from '../../src/shared/contract';

const OPTS: ThroughputWatchdogOptions = {
  warmupMs: 1_000,
  windowMs: 2_000,
  minBytesPerSecond: 10,
  minMeasurableBytes: 0,
};

const chatText = (t: string) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })}\n\n`;
const anthropicText = (t: string) =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })}\n\n`;
const responsesText = (t: string) =>
  `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: t })}\n\n`;
const geminiText = (t: string) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, index: 0 }] })}\n\n`;
const TEXT: Record<ClientFormat, (t: string) => string> = {
  gemini: geminiText,
  'openai-chat': chatText,
  anthropic: anthropicText,
  'openai-responses': responsesText,
};

/** Text bytes a whole stream adds up to, fed in the given pieces. */
function countBytes(format: ClientFormat, pieces: Uint8Array[]): number {
  const dog = new ThroughputWatchdog(OPTS, 0);
  const feed = new WatchdogFeed(format, dog);
  for (const p of pieces) feed.push(p, 0);
  feed.end(0);
  return dog.textBytes;
}

function signal(format: ClientFormat, event: string | null, data: unknown) {
  return classifyStreamEvent(format, event, typeof data === 'string' ? data : JSON.stringify(data));
}

describe('§6 counts text deltas by UTF-8 byte length', () => {
  it('Chat Completions: choices[].delta.content', () => {
    expect(countBytes('openai-chat', [Buffer.from(chatText('héllo') + chatText('日本'))])).toBe(
      6 + 6,
    );
  });
  it('Anthropic: content_block_delta with text_delta', () => {
    expect(countBytes('anthropic', [Buffer.from(anthropicText('a🙂'))])).toBe(5);
  });
  it('Responses: response.output_text.delta', () => {
    expect(countBytes('openai-responses', [Buffer.from(responsesText('ÿ'))])).toBe(2);
  });
  it('several choices in one chunk add up', () => {
    const data = { choices: [{ delta: { content: 'ab' } }, { delta: { content: 'c' } }] };
    expect(signal('openai-chat', null, data)).toEqual({ kind: 'text', bytes: 3 });
  });
});

describe('§6 ignores heartbeats, empty and usage-only events', () => {
  it('SSE comment lines never count', () => {
    const stream = `: keep-alive\n\n${chatText('x')}: ping\n\n`;
    expect(countBytes('openai-chat', [Buffer.from(stream)])).toBe(1);
  });
  it('Anthropic ping is a heartbeat', () => {
    expect(signal('anthropic', 'ping', { type: 'ping' })).toEqual({ kind: 'heartbeat' });
  });
  it('empty content, role-only, usage-only and [DONE] chunks are metadata', () => {
    expect(signal('openai-chat', null, { choices: [{ delta: { content: '' } }] }).kind).toBe(
      'meta',
    );
    expect(signal('openai-chat', null, { choices: [{ delta: { role: 'assistant' } }] }).kind).toBe(
      'meta',
    );
    expect(signal('openai-chat', null, { choices: [], usage: { completion_tokens: 5 } }).kind).toBe(
      'meta',
    );
    expect(signal('openai-chat', null, '[DONE]').kind).toBe('meta');
    expect(
      signal('anthropic', 'message_delta', { type: 'message_delta', usage: { output_tokens: 3 } })
        .kind,
    ).toBe('meta');
    expect(
      signal('openai-responses', 'response.completed', {
        type: 'response.completed',
        response: { usage: {} },
      }).kind,
    ).toBe('meta');
  });
  it('error events are recognised in every format', () => {
    expect(signal('openai-chat', null, { error: { message: 'x' } }).kind).toBe('error');
    expect(signal('anthropic', 'error', { type: 'error', error: {} }).kind).toBe('error');
    expect(signal('openai-responses', 'error', { type: 'error', message: 'x' }).kind).toBe('error');
  });
});

describe('§6 pauses judgement while tool-call or reasoning events flow', () => {
  it.each([
    ['openai-chat', null, { choices: [{ delta: { tool_calls: [{ index: 0 }] } }] }],
    ['openai-chat', null, { choices: [{ delta: { reasoning_content: 'hm' } }] }],
    [
      'anthropic',
      'content_block_delta',
      { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{' } },
    ],
    [
      'anthropic',
      'content_block_delta',
      { type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'hm' } },
    ],
    [
      'anthropic',
      'content_block_start',
      { type: 'content_block_start', content_block: { type: 'tool_use' } },
    ],
    [
      'openai-responses',
      'response.function_call_arguments.delta',
      { type: 'response.function_call_arguments.delta', delta: '{' },
    ],
    [
      'openai-responses',
      'response.reasoning_summary_text.delta',
      { type: 'response.reasoning_summary_text.delta', delta: 'hm' },
    ],
    [
      'openai-responses',
      'response.output_item.added',
      { type: 'response.output_item.added', item: { type: 'function_call' } },
    ],
  ] as const)('%s %s is a pause', (format, event, data) => {
    expect(signal(format, event, data)).toEqual({ kind: 'pause' });
  });

  it('a pause needs a full window after it before anything is judged', () => {
    const dog = new ThroughputWatchdog(OPTS, 0);
    dog.observe({ kind: 'pause' }, 2_500);
    expect(dog.check(4_000).kind).toBe('ok'); // would have tripped at 3000 without the pause
    expect(dog.check(4_499).kind).toBe('ok');
    expect(dog.check(4_500).kind).toBe('trip');
  });
});

describe('§6 acts only after a warm-up and then a full rolling window', () => {
  it('no output: nothing before warm-up + window, a trip right at it', () => {
    const dog = new ThroughputWatchdog(OPTS, 100);
    expect(dog.check(100).kind).toBe('ok');
    expect(dog.check(1_100).kind).toBe('ok'); // warm-up over, no full window yet
    expect(dog.check(3_099).kind).toBe('ok');
    const v = dog.check(3_100);
    expect(v).toMatchObject({ kind: 'trip', bytesInWindow: 0, windowMs: 2_000 });
  });

  it('heartbeats and metadata reset nothing', () => {
    const dog = new ThroughputWatchdog(OPTS, 0);
    for (let t = 0; t < 3_000; t += 100) {
      dog.observe({ kind: 'heartbeat' }, t);
      dog.observe({ kind: 'meta' }, t);
      dog.observe({ kind: 'text', bytes: 0 }, t);
    }
    expect(dog.check(3_000).kind).toBe('trip');
  });

  it('a rate at the minimum passes, just below it trips', () => {
    // 10 B/s over a 2 s window = 20 bytes needed.
    const ok = new ThroughputWatchdog(OPTS, 0);
    const low = new ThroughputWatchdog(OPTS, 0);
    for (let t = 100; t <= 3_000; t += 100) {
      ok.observe({ kind: 'text', bytes: 1 }, t);
      if (t % 200 === 0 || t === 100) low.observe({ kind: 'text', bytes: 1 }, t);
    }
    expect(ok.check(3_000).kind).toBe('ok');
    expect(low.check(3_000)).toMatchObject({ kind: 'trip', bytesInWindow: 10 });
  });

  it('the window rolls: an early burst does not cover a later stall', () => {
    const dog = new ThroughputWatchdog(OPTS, 0);
    dog.observe({ kind: 'text', bytes: 10_000 }, 1_500);
    expect(dog.check(3_000).kind).toBe('ok');
    expect(dog.check(3_499).kind).toBe('ok');
    expect(dog.check(3_500).kind).toBe('trip'); // the burst left the window (1500, 3500]
  });

  it('minMeasurableBytes stretches a short window', () => {
    const dog = new ThroughputWatchdog({ ...OPTS, minMeasurableBytes: 50 }, 0);
    expect(dog.spanMs).toBe(5_000); // 50 bytes at 10 B/s
    expect(dog.check(5_999).kind).toBe('ok');
    expect(dog.check(6_000).kind).toBe('trip');
  });

  it('options are clamped once', () => {
    expect(
      watchdogOptions({
        warmupMs: -5,
        windowMs: 1,
        minBytesPerSecond: 0,
        minMeasurableBytes: Number.NaN,
      }),
    ).toEqual({ warmupMs: 0, windowMs: 100, minBytesPerSecond: 1, minMeasurableBytes: 0 });
  });
});

describe('§6 property: any chunking of the same stream gives the same counts', () => {
  const textArb = fc.string({ unit: 'grapheme', maxLength: 12 });
  const eventArb = fc.oneof(
    textArb.map((t) => ({ t, kind: 'text' as const })),
    fc.constant({ t: '', kind: 'beat' as const }),
  );

  it.each(['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const)('%s', (format) => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (events, cuts, crlf) => {
          let stream = '';
          let expected = 0;
          for (const e of events) {
            if (e.kind === 'beat')
              stream +=
                format === 'anthropic'
                  ? 'event: ping\ndata: {"type":"ping"}\n\n'
                  : ': keep-alive\n\n';
            else {
              stream += TEXT[format](e.t);
              expected += Buffer.byteLength(e.t, 'utf8');
            }
          }
          if (crlf) stream = stream.replaceAll('\n', '\r\n');
          const bytes = Buffer.from(stream, 'utf8');
          // Cut anywhere, including inside multi-byte UTF-8 sequences.
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const pieces: Uint8Array[] = [];
          let at = 0;
          for (const p of points) {
            pieces.push(bytes.subarray(at, p));
            at = p;
          }
          pieces.push(bytes.subarray(at));
          expect(countBytes(format, pieces)).toBe(expected);
          expect(countBytes(format, [bytes])).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
