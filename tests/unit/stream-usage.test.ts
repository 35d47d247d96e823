import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContentMeter, UsageEventStrip } from '../../src/main/engine/proxy/pipeline/stream-usage';
import { SseUsageObserver } from '../../src/main/engine/usage/usage';

const event = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
const delta = (content: string) =>
  event({
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content } }],
    usage: null,
  });
const usage = event({
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 9, completion_tokens: 4 },
});
const stream = `${delta('Hi')}${delta(' "usage":{ there')}${usage}data: [DONE]\n\n`;

/**
 * Everything the strip lets through when `text` arrives cut at `cuts`, searching where the
 * usage observer says a usage object may be (as the relay does), or every chunk (`always`).
 */
function through(cuts: number[], text = stream, always = false): string {
  const strip = new UsageEventStrip();
  const observer = new SseUsageObserver();
  const bytes = Buffer.from(text);
  let out = '';
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    const piece = bytes.subarray(from, at);
    const usageFrom = observer.push(piece);
    out += strip.push(piece, always ? 0 : usageFrom).toString();
    from = at;
  }
  return out + (strip.rest()?.toString() ?? '');
}

describe('the usage event strip (issue 27)', () => {
  it('takes out the usage-only event and its blank line, wherever the chunks are cut', () => {
    const expected = `${delta('Hi')}${delta(' "usage":{ there')}data: [DONE]\n\n`;
    expect(through([])).toBe(expected);
    for (let cut = 1; cut < stream.length; cut += 7) expect(through([cut])).toBe(expected);
    expect(through([stream.indexOf('usage":{"prompt'), stream.indexOf('[DONE]')])).toBe(expected);
  });

  it('takes out every usage-only event, moving what follows each in place', () => {
    const twice = `${delta('a')}${usage}${delta('b')}${usage}${delta('c')}data: [DONE]\n\n`;
    expect(through([], twice)).toBe(`${delta('a')}${delta('b')}${delta('c')}data: [DONE]\n\n`);
    const crlf = `${delta('a')}${usage.replace('\n\n', '\n\r\n')}data: [DONE]\n\n`;
    expect(through([], crlf)).toBe(`${delta('a')}data: [DONE]\n\n`);
  });

  it('searching only where the observer saw a usage object lets through what searching every chunk in full does', () => {
    const piece = fc.constantFrom(
      delta('Hi'),
      delta(' "usage":{ '),
      delta('usage":{'),
      usage,
      event({ choices: [], usage: null }),
      event({ choices: [], usage: {} }),
      event({ choices: [], max_usage: { a: 1 }, usage: { b: 2 } }),
      'data: {"choices":[],"usage" : {"prompt_tokens":1}}\n\n',
      'data: {"choices":[],"\\u0075sage":{"prompt_tokens":1},"usage":null}\n\n',
      ': keep-alive\n\n',
      'data: [DONE]\n\n',
      'data: {"unfinished',
    );
    const arb = fc.array(piece, { maxLength: 12 }).chain((pieces) => {
      const text = pieces.join('');
      return fc
        .uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 10 })
        .map((cuts) => ({ text, cuts: cuts.filter((c) => c < text.length).sort((a, b) => a - b) }));
    });
    fc.assert(
      fc.property(arb, ({ text, cuts }) => {
        expect(through(cuts, text)).toBe(through(cuts, text, true));
      }),
      { numRuns: 400 },
    );
  });

  it('an event longer than the observer keeps (16 MB) is still searched once it ends', () => {
    const head = 'data: {"choices":[],"usage":{"prompt_tokens":1},"pad":"';
    const pad = 'x'.repeat(9 * 1024 * 1024);
    const text = `${head}${pad}${pad}"}\n\n${delta('after')}`;
    const cuts = [head.length + pad.length, head.length + 2 * pad.length];
    expect(through(cuts, text)).toBe(delta('after'));
  });

  it('keeps an unfinished last line for the end of the stream', () => {
    const strip = new UsageEventStrip();
    expect(strip.push(Buffer.from('data: {"a"'), 0).length).toBe(0);
    expect(strip.rest()?.toString()).toBe('data: {"a"');
  });
});

describe('the content meter', () => {
  it('counts the bytes of content, reasoning and tool-call argument strings only', () => {
    const m = new ContentMeter();
    m.push(Buffer.from(delta('Hi "you"')));
    m.push(Buffer.from(event({ choices: [{ delta: { reasoning_content: 'hmm' } }] })));
    m.push(
      Buffer.from(
        event({ choices: [{ delta: { tool_calls: [{ function: { arguments: '{"x":1}' } }] } }] }),
      ),
    );
    // `Hi \"you\"` is 10 bytes escaped, `hmm` 3, `{\"x\":1}` 9.
    expect(m.bytes).toBe(10 + 3 + 9);
  });

  it('counts what a search per key and occurrence counts, however the stream is cut', () => {
    const keys = ['content":"', 'arguments":"', 'reasoning":"'].map((k) => Buffer.from(k));
    // The measure as each key's bytes find it, one native search per occurrence.
    const perKey = (buf: Buffer): number => {
      let n = 0;
      for (const key of keys) {
        for (let at = buf.indexOf(key); at !== -1; at = buf.indexOf(key, at + key.length)) {
          let i = at + key.length;
          while (i < buf.length && buf[i] !== 0x22) i += buf[i] === 0x5c ? 2 : 1;
          n += Math.min(i, buf.length) - at - key.length;
        }
      }
      return n;
    };
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('content":"', 'arguments":"x', '"reasoning":"', '\\', '\\"', '\u00e9'),
    );
    const piece = fc.oneof(
      text.map((t) => delta(t)),
      text.map((t) => event({ choices: [{ delta: { reasoning_content: t, reasoning: t } }] })),
      text.map((t) =>
        event({ choices: [{ delta: { tool_calls: [{ function: { arguments: t } }] } }] }),
      ),
      // Raw bytes: keys cut short, unclosed strings, a key right after another's match.
      fc.constantFrom('content":"', 'content":"arguments":"x"', 'reasoning":"\\', '"content":"é'),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (pieces, cuts) => {
          const bytes = Buffer.from(pieces.join(''));
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [...at, bytes.length].map((end, i) =>
            bytes.subarray(i === 0 ? 0 : at[i - 1], end),
          );
          const m = new ContentMeter();
          let expected = 0;
          for (const c of chunks) {
            m.push(c);
            expected += perKey(c);
          }
          expect(m.bytes).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
