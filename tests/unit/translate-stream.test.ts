import { describe, expect, it } from 'vitest';
import { createStreamTranslator, droppedHeader } from '../../src/main/engine/translate';
import type { WireFormat } from '../../src/main/engine/translate/ir';
import { SseDecoder } from '../../src/main/engine/translate/stream';
import { FORMATS, NOW_MS, others, sseEvents, streamFixture } from '../support/translate-fixtures';

const opts = { nowMs: NOW_MS, includeUsage: true };
const firstEvent = (sse: string): string => `${sse.split('\n\n')[0]!}\n\n`;

describe('stream conversion is incremental', () => {
  for (const from of FORMATS) {
    for (const to of others(from)) {
      it(`${from} → ${to}: the first upstream event yields client bytes at once`, () => {
        const t = createStreamTranslator(from, to, opts);
        const out = t.push(Buffer.from(firstEvent(streamFixture(from))));
        expect(out).not.toBe('');
        const first = sseEvents(out)[0]!;
        if (to === 'anthropic') expect(first.event).toBe('message_start');
        if (to === 'openai-responses') expect(first.event).toBe('response.created');
        if (to === 'openai-chat')
          expect(first.data).toMatchObject({ object: 'chat.completion.chunk' });
      });
    }
  }

  it('an event split across chunks is translated once it is complete', () => {
    const t = createStreamTranslator('openai-chat', 'anthropic', opts);
    const first = firstEvent(streamFixture('openai-chat'));
    expect(t.push(Buffer.from(first.slice(0, 30)))).toBe('');
    expect(t.push(Buffer.from(first.slice(30)))).toContain('message_start');
  });
});

describe('a stream that breaks off or fails ends with an error in the client format', () => {
  const cut = (from: WireFormat) => {
    const events = streamFixture(from).split('\n\n');
    return `${events.slice(0, 6).join('\n\n')}\n\n`;
  };
  const expected: Record<WireFormat, (e: { event: string | null; data: unknown }) => void> = {
    anthropic: (e) =>
      expect(e).toMatchObject({
        event: 'error',
        data: { type: 'error', error: { type: 'api_error' } },
      }),
    'openai-chat': (e) =>
      expect(e.data).toMatchObject({ error: { code: 'upstream_stream_incomplete' } }),
    'openai-responses': (e) =>
      expect(e).toMatchObject({ event: 'error', data: { code: 'upstream_stream_incomplete' } }),
    gemini: (e) =>
      expect(e.data).toMatchObject({
        error: { status: 'INTERNAL', details: [{ reason: 'upstream_stream_incomplete' }] },
      }),
  };
  for (const from of FORMATS) {
    for (const to of others(from)) {
      it(`${from} → ${to}: no terminator upstream, no success terminator downstream`, () => {
        const t = createStreamTranslator(from, to, opts);
        const events = sseEvents(t.push(Buffer.from(cut(from))) + t.end());
        expected[to](events.at(-1)!);
        expect(JSON.stringify(events)).not.toContain('[DONE]');
        expect(JSON.stringify(events)).not.toContain('message_stop');
        expect(JSON.stringify(events)).not.toContain('response.completed');
      });
    }
  }

  it("an Anthropic overloaded error event becomes the client's error event", () => {
    const t = createStreamTranslator('anthropic', 'openai-responses', opts);
    const sse =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const events = sseEvents(t.push(Buffer.from(sse)) + t.end());
    expect(events.at(-1)).toMatchObject({
      event: 'error',
      data: { type: 'error', code: 'overloaded_error', message: 'Overloaded' },
    });
    expect(t.errored).toBe(true);
  });
});

describe('chat usage chunk', () => {
  it('is sent only when the client asked for it', () => {
    const sse = streamFixture('anthropic');
    const without = createStreamTranslator('anthropic', 'openai-chat', {
      ...opts,
      includeUsage: false,
    });
    const events = sseEvents(without.push(Buffer.from(sse)) + without.end());
    expect(events.some((e) => JSON.stringify(e.data).includes('"usage"'))).toBe(false);
    // The gateway still learns the usage for its request log.
    expect(without.usage).toMatchObject({ input: 2150, output: 87, cached: 2000 });
  });
});

describe('SSE decoding', () => {
  it('handles CRLF, comments, multi-line data and a last event without a blank line', () => {
    const got: [string | null, string][] = [];
    const d = new SseDecoder();
    const on = (e: string | null, data: string) => got.push([e, data]);
    d.push(Buffer.from(': keep-alive\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: x'), on);
    d.end(on);
    expect(got).toEqual([
      ['a', '1\n2'],
      [null, 'x'],
    ]);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const got: string[] = [];
    const bytes = Buffer.from('data: "héllo 🌊"\n\n');
    const d = new SseDecoder();
    for (let i = 0; i < bytes.length; i++)
      d.push(bytes.subarray(i, i + 1), (_e, data) => got.push(data));
    expect(got).toEqual(['"héllo 🌊"']);
  });
});

describe('X-Breakwater-Dropped', () => {
  it('stays a valid header whatever keys the client sent', () => {
    const value = droppedHeader(['top_k', 'bad\r\nkey', 'ünïcode', 'top_k', 'x'.repeat(2000)]);
    expect(value.startsWith('top_k, bad??key, ?n?code, ')).toBe(true);
    expect(value.length).toBeLessThanOrEqual(1024);
    expect(value).toMatch(/^[\x20-\x7e]*$/);
  });
});

describe('a Chat server that finishes a tool-calling turn with "stop"', () => {
  it('still gives an Anthropic client stop_reason tool_use', () => {
    const sse = streamFixture('openai-chat').replace(
      '"finish_reason":"tool_calls"',
      '"finish_reason":"stop"',
    );
    const t = createStreamTranslator('openai-chat', 'anthropic', opts);
    const events = sseEvents(t.push(Buffer.from(sse)) + t.end());
    expect(events.find((e) => e.event === 'message_delta')!.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
    });
  });
});
