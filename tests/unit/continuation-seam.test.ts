import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addUsage,
  MIN_OVERLAP_CHARS,
  readSent,
  Seam,
  SeamText,
  seamOverlap,
} from '../../src/main/engine/resilience/continuation';
import { createStreamTranslator } from '../../src/main/engine/translate';
import { emptyUsage, type IrEvent } from '../../src/main/engine/translate/ir';

/** The text a client ends with: what it had, plus what the seam lets through of `after`. */
function joined(before: string, chunks: string[]): string {
  const seam = new SeamText(before);
  let out = before;
  for (const c of chunks) out += seam.push(c);
  return out + seam.flush();
}

const word = fc.stringMatching(/^[a-z]{1,9}$/);
const sentence = fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => w.join(' '));

/** Splits a text into pieces at the given (sorted, de-duplicated) places. */
function cutInto(text: string, at: number[]): string[] {
  const places = [...new Set(at.map((a) => a % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of places) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out.filter((s) => s !== '');
}

describe('the seam rule: a repeat of the last words before the cut is shown once', () => {
  it('drops the last three words when the continuation repeats them', () => {
    const before = 'the quick brown fox jumps over ';
    expect(joined(before, ['fox jumps over the lazy dog'])).toBe(
      'the quick brown fox jumps over the lazy dog',
    );
  });

  it('is tolerant of white space: runs, line breaks and a leading space match', () => {
    expect(joined('alpha beta  gamma', ['\nbeta gamma delta'])).toBe('alpha beta  gamma delta');
    expect(joined('one two\nthree', [' two three four'])).toBe('one two\nthree four');
  });

  it('keeps a continuation that repeats nothing, and a repeat too short to be sure of', () => {
    expect(joined('I think it is', [' a good idea'])).toBe('I think it is a good idea');
    // "is a" repeats only three letters: taken as new text.
    expect(joined('this is a', [' is a test'])).toBe('this is a is a test');
  });

  it('does not match inside a word on either side', () => {
    expect(seamOverlap('the unbreakable', 'breakable things', true)).toBe(0);
    expect(seamOverlap('wide rivers', 'rivers flow', true)).toBe(6);
    expect(seamOverlap('wide rivers', 'riversides flow', true)).toBe(0);
  });

  it('waits while the continuation is too short to tell, then decides on flush', () => {
    expect(seamOverlap('over the hills', 'hil', false)).toBeNull();
    expect(seamOverlap('over the hills', 'hil', true)).toBe(0);
    const seam = new SeamText('over the hills');
    expect(seam.push(' the hi')).toBe('');
    expect(seam.push('lls and far away')).toBe(' and far away');
  });

  it('a cut after white space gets no second space (the prefill lost it)', () => {
    expect(joined('first part ', [' second part'])).toBe('first part second part');
  });

  it('property: a continuation that goes on exactly is relayed unchanged, however it is split', () => {
    fc.assert(
      fc.property(sentence, sentence, fc.array(fc.nat(400)), (a, b, cuts) => {
        const before = `${a} `;
        // A continuation never starts by repeating the end, here: a marker word first.
        const after = `zzqx ${b}`;
        expect(joined(before, cutInto(after, cuts))).toBe(before + after);
      }),
    );
  });

  it('property: a repeat of the last k words (at least the minimum) is shown once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{3,9}$/), { minLength: 3, maxLength: 30 }),
        sentence,
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.nat(400)),
        (words, rest, k, cuts) => {
          const repeated = words.slice(-k).join(' ');
          fc.pre(repeated.replace(/\s/g, '').length >= MIN_OVERLAP_CHARS);
          const before = `${words.join(' ')} `;
          const after = `${repeated} zzqx ${rest}`;
          expect(joined(before, cutInto(after, cuts))).toBe(`${before}zzqx ${rest}`);
        },
      ),
    );
  });

  it('property: hostile text (any unicode, huge) never throws and never loses text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.string({ maxLength: 2000 }), (a, b) => {
        const out = joined(a, [b]);
        expect(out.startsWith(a)).toBe(true);
        // What follows the cut is a tail of the continuation: nothing invented.
        expect(b.endsWith(out.slice(a.length).trimStart())).toBe(true);
      }),
    );
  });
});

describe('what the client already has, read back from the broken stream', () => {
  const sse = (event: string, data: unknown) =>
    `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const anthropic = [
    sse('message_start', {
      type: 'message_start',
      message: { id: 'msg_1', model: 'm', usage: { input_tokens: 12, output_tokens: 1 } },
    }),
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Hello ' },
    }),
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'world' },
    }),
  ].join('');

  it('the text so far, the usage, where the cut fell; a half event does not count', () => {
    const half = 'event: content_block_delta\ndata: {"type":"content_block_delta","ind';
    const sent = readSent('anthropic', [Buffer.from(anthropic + half)]);
    expect(sent.text).toBe('Hello world');
    expect(sent.usage.input).toBe(12);
    expect(sent.at).toBe('text');
    expect(sent.stopped).toBe(false);
  });

  it('a cut inside a tool call or unsigned thinking is told apart', () => {
    const tool = sse('content_block_start', {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} },
    });
    expect(readSent('anthropic', [Buffer.from(anthropic + tool)]).at).toBe('tool');
    const thinking =
      sse('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'thinking', thinking: '' },
      }) +
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'thinking_delta', thinking: 'hmm' },
      });
    expect(readSent('anthropic', [Buffer.from(anthropic + thinking)]).at).toBe('thinking');
  });

  it('garbage bytes read as nothing, not as a crash', () => {
    const sent = readSent('openai-chat', [
      Buffer.from('data: {not json\n\n\u0000\u0001'),
      Buffer.alloc(10, 0xff),
    ]);
    expect(sent.text).toBe('');
    expect(sent.events).toEqual([]);
  });
});

describe('the seam relays only what comes after the cut, with one stop and one usage', () => {
  it('drops the continuation start, thinking and its own usage; adds both calls at the stop', () => {
    const t = createStreamTranslator('anthropic', 'openai-chat', { nowMs: 0, includeUsage: true });
    const start: IrEvent = { type: 'start', id: 'chat-1', model: 'm', usage: null };
    t.apply([start, { type: 'text', text: 'one two three ' }]);
    const sent = readSent('openai-chat', []);
    const seam = new Seam(
      t,
      { ...sent, text: 'one two three ', usage: { ...emptyUsage(), input: 10, output: 3 } },
      {
        reason: 'stream_network',
        chars: 14,
        target: 'a/b',
      },
    );
    seam.begin();
    const out =
      seam.relay([
        { type: 'start', id: 'other', model: 'm', usage: { ...emptyUsage(), input: 14 } },
        { type: 'reasoning', text: 'secret' },
        { type: 'text', text: 'two three four five' },
        { type: 'usage', usage: { ...emptyUsage(), output: 2 } },
        { type: 'stop', stop: 'end', stopSequence: null },
      ]) + seam.translator.close();
    expect(out).not.toContain('other');
    expect(out).not.toContain('secret');
    expect(out).toContain('"content":"four five"');
    expect(out.match(/"finish_reason":"stop"/g)).toHaveLength(1);
    expect(out).toContain('"prompt_tokens":24');
    // The cut call's 3 reported tokens are below the estimate for its text (14 chars → 4).
    expect(out).toContain('"completion_tokens":6');
    expect(seam.partial).toBe('one two three four five');
    expect(seam.finished).toBe(true);
  });

  it('a continuation cut while its repeat was still held shows nothing of it; the next goes on', () => {
    const t = createStreamTranslator('openai-chat', 'openai-chat', {
      nowMs: 0,
      includeUsage: false,
    });
    t.apply([{ type: 'start', id: 'c1', model: 'm', usage: null }]);
    const before = 'alpha beta gamma delta ';
    const seam = new Seam(
      t,
      { ...readSent('openai-chat', []), text: before },
      { reason: 'x', chars: 23, target: 't' },
    );
    seam.begin();
    // "gamma " could be the start of a repeat of "gamma delta": held, then the stream breaks.
    expect(seam.relay([{ type: 'text', text: 'gamma ' }])).toBe('');
    seam.broke({ reason: 'stream_network', chars: seam.partial.length, target: 't' });
    expect(seam.partial).toBe(before);
    seam.begin();
    const out = seam.relay([
      { type: 'text', text: 'gamma delta epsilon' },
      { type: 'stop', stop: 'end', stopSequence: null },
    ]);
    expect(out).toContain('"content":"epsilon"');
    expect(seam.partial).toBe(`${before}epsilon`);
  });

  it('numbers a continuation’s tool calls after the ones the client has', () => {
    const t = createStreamTranslator('anthropic', 'anthropic', { nowMs: 0, includeUsage: false });
    t.apply([{ type: 'start', id: 'm1', model: 'm', usage: null }]);
    const seam = new Seam(
      t,
      { ...readSent('anthropic', []), toolBase: 2 },
      { reason: 'x', chars: 0, target: 't' },
    );
    seam.begin();
    const out = seam.relay([
      { type: 'tool_start', index: 0, id: 'c', name: 'f' },
      { type: 'tool_args', index: 0, delta: '{}' },
    ]);
    expect(out).toContain('"name":"f"');
    expect(seam.at).toBe('tool');
  });

  it('addUsage keeps unknown fields unknown', () => {
    expect(addUsage(emptyUsage(), emptyUsage())).toEqual(emptyUsage());
    expect(addUsage({ ...emptyUsage(), input: 1 }, { ...emptyUsage(), input: 2 }).input).toBe(3);
  });
});
