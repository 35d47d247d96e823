import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeamLog } from '../../src/main/engine/proxy/pipeline/seam-log';
import type { WireFormat } from '../../src/main/engine/translate';

/** The error markers as the log's doc gives them, searched the plain way. */
const MARKERS: Record<WireFormat, string[]> = {
  anthropic: ['"type":"error"'],
  'openai-chat': ['data: {"error"'],
  'openai-responses': ['"type":"error"', '"type":"response.failed"'],
  gemini: ['data: {"error"'],
};

/** What `whole` lets out of one chunk of whole events: up to the event holding the first marker. */
function plainCut(format: WireFormat, text: string): string {
  let at = -1;
  for (const m of MARKERS[format]) {
    const i = text.indexOf(m);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  if (at === -1) return text;
  const lf = text.lastIndexOf('\n\n', at);
  const crlf = text.lastIndexOf('\r\n\r\n', at);
  return text.slice(0, Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4));
}

const FORMATS = Object.keys(MARKERS) as WireFormat[];

describe('the continuation log stops at an error event', () => {
  it('cuts where a plain search for the markers cuts, for any mix of events', () => {
    const event = fc.constantFrom(
      'data: {"choices":[{"delta":{"content":"err"}}]}\n\n',
      'data: {"error":{"message":"overloaded"}}\n\n',
      'data: {"err":1}\n\n',
      'data: {"text":"rror\\" {\\"err"}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error"}}\n\n',
      'data: {"type":"errors"}\n\n',
      'data: {"type":"response.failed","response":{}}\n\n',
      'data: {"type":"response.fail"}\r\n\r\n',
      'event: x\r\ndata: {"type":"error"}\r\n\r\n',
      ': keep-alive\n\n',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.array(event, { maxLength: 10 }),
        (format, evs) => {
          const text = evs.join('');
          const log = new SeamLog(format);
          const out = log.whole(Buffer.from(text)).toString();
          expect(out).toBe(plainCut(format, text));
          expect(log.errored).toBe(out.length < text.length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a marker split across chunks is found once its event is whole', () => {
    const log = new SeamLog('openai-chat');
    const ok = 'data: {"choices":[]}\n\n';
    expect(log.whole(Buffer.from(`${ok}data: {"er`)).toString()).toBe(ok);
    expect(log.whole(Buffer.from('ror":{}}\n\n')).length).toBe(0);
    expect(log.errored).toBe(true);
  });

  it('a stream has ended cleanly when one of its last two chunks holds the stop', () => {
    const log = new SeamLog('openai-chat');
    log.whole(Buffer.from('data: {"choices":[{"finish_reason":"stop"}]}\n\n'));
    log.whole(Buffer.from('data: {"choices":[],"usage":{}}\n\n'));
    expect(log.endedCleanly()).toBe(true);
    log.whole(Buffer.from(': keep-alive\n\n'));
    expect(log.endedCleanly()).toBe(false);
    const anthropic = new SeamLog('anthropic');
    anthropic.whole(Buffer.from('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect(anthropic.endedCleanly()).toBe(true);
  });
});

describe('the continuation log keeps its own copy of what went out', () => {
  it('holds exactly the bytes let out, in order, however the chunks come and however many', () => {
    const piece = fc.constantFrom(
      'data: {"choices":[{"delta":{"content":"w1 "}}],"usage":null}\n\n',
      'data: {"choices":[{"delta":{"content":"',
      'half"}}]}\n\n',
      ': keep-alive\r\n\r\n',
      `data: {"choices":[{"delta":{"content":"${'x'.repeat(9000)}"}}]}\n\n`,
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const log = new SeamLog('openai-chat');
        const out: Buffer[] = [];
        for (const p of pieces) {
          const chunk = Buffer.from(p);
          const sent = log.whole(chunk);
          out.push(Buffer.from(sent));
          // The socket's buffer is reused or let go after the chunk: the log must not see that.
          chunk.fill(0x21);
        }
        expect(Buffer.concat(log.chunks).toString()).toBe(Buffer.concat(out).toString());
      }),
      { numRuns: 300 },
    );
  });

  it('finds the stop in the last two chunks when they sit in different blocks', () => {
    const log = new SeamLog('openai-chat');
    // Fills the first block (4 KB) nearly, so the next chunks go into a second one.
    log.whole(Buffer.from(`data: {"c":"${'y'.repeat(4000)}"}\n\n`));
    log.whole(Buffer.from('data: {"choices":[{"finish_reason":"stop"}]}\n\n'));
    log.whole(Buffer.from(`data: {"choices":[],"usage":{"n":"${'z'.repeat(200)}"}}\n\n`));
    expect(log.chunks.length).toBe(2);
    expect(log.endedCleanly()).toBe(true);
    log.whole(Buffer.from(': keep-alive\n\n'));
    expect(log.endedCleanly()).toBe(false);
  });

  it('hands its blocks to the next stream once released, and only then', () => {
    const stream = (fill: string) => `data: {"c":"${fill.repeat(3000)}"}\n\n`;
    const first = new SeamLog('openai-chat');
    first.whole(Buffer.from(stream('a')));
    const seen = first.chunks;
    const second = new SeamLog('openai-chat');
    second.whole(Buffer.from(stream('b')));
    // Both are open: each has a block of its own.
    expect(Buffer.concat(first.chunks).toString()).toBe(stream('a'));
    expect(Buffer.concat(second.chunks).toString()).toBe(stream('b'));
    first.release();
    first.release();
    const third = new SeamLog('openai-chat');
    third.whole(Buffer.from(stream('c')));
    const fourth = new SeamLog('openai-chat');
    fourth.whole(Buffer.from(stream('d')));
    // The first's block went back once (released twice), to one of the streams after it.
    expect(seen[0]!.buffer).toBe(third.chunks[0]!.buffer);
    expect(fourth.chunks[0]!.buffer).not.toBe(third.chunks[0]!.buffer);
    expect(Buffer.concat(third.chunks).toString()).toBe(stream('c'));
    expect(Buffer.concat(fourth.chunks).toString()).toBe(stream('d'));
    for (const log of [second, third, fourth]) log.release();
  });

  it('keeps the blocks a continuation took out of the pool: its bytes stay as they were', () => {
    const log = new SeamLog('openai-chat');
    const text = 'data: {"choices":[{"delta":{"content":"kept"}}]}\n\n';
    log.whole(Buffer.from(text));
    const taken = log.take();
    log.release();
    const next = new SeamLog('openai-chat');
    next.whole(Buffer.from(`data: {"c":"${'z'.repeat(3000)}"}\n\n`));
    expect(next.chunks[0]!.buffer).not.toBe(taken[0]!.buffer);
    expect(Buffer.concat(taken).toString()).toBe(text);
    next.release();
  });

  it('lets its blocks go when released', () => {
    const log = new SeamLog('anthropic');
    log.keep(Buffer.from('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect(log.endedCleanly()).toBe(true);
    log.release();
    expect(log.chunks).toEqual([]);
    expect(log.endedCleanly()).toBe(false);
  });
});
