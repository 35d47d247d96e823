import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/main/engine/proxy/pipeline/context';
import {
  NO_MEMBERS,
  passthroughBody,
  withMembers,
} from '../../src/main/engine/proxy/pipeline/passthrough-body';
import { cacheKeyMember } from '../../src/main/engine/proxy/pipeline/prompt-cache';
import { USAGE_ASKED, usageAskedAgain } from '../../src/main/engine/proxy/pipeline/stream-usage';

// Only what passthroughBody reads: the bytes, the model parse found, and where (if it noted it).
function ctxOf(
  raw: Buffer,
  model: string,
  span: { start: number; end: number } | null = null,
): RequestContext {
  return {
    raw,
    model,
    parsed: null,
    modelSpan: span ? { of: raw, ...span } : null,
  } as unknown as RequestContext;
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const member = fc.tuple(
  fc.constantFrom('messages', 'max_tokens', 'stream', 'metadata', 'tools', 'x'),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('a passed-through body: model, cache key and usage request in one copy', () => {
  it('parses to the client body with the members in front and the model replaced', () => {
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 5 }),
        fc.nat(5),
        text,
        text,
        fc.constantFrom('', ' ', '\n\t '),
        fc.boolean(),
        fc.boolean(),
        (members, at, from, to, ws, keyed, asked) => {
          const entries: [string, unknown][] = [...members];
          entries.splice(Math.min(at, entries.length), 0, ['model', from]);
          const client = Object.fromEntries(entries);
          // Duplicate keys in the generated members are fine: JSON.parse keeps the last, as here.
          const raw = Buffer.from(ws + JSON.stringify(client));
          const front = [
            ...(keyed ? [cacheKeyMember('bw-0123')] : []),
            ...(asked ? [USAGE_ASKED] : []),
          ];
          const out = passthroughBody(ctxOf(raw, from), to, front);
          const parsed = JSON.parse(out.toString('utf8')) as Record<string, unknown>;
          const want = {
            ...(keyed ? { prompt_cache_key: 'bw-0123' } : {}),
            ...(asked ? { stream_options: { include_usage: true } } : {}),
            ...JSON.parse(raw.toString('utf8')),
            model: to,
          };
          expect(parsed).toEqual(want);
          expect(Object.keys(parsed).slice(0, front.length)).toEqual(
            Object.keys(want).slice(0, front.length),
          );
        },
      ),
    );
  });

  it('keeps every byte but the model value and the added members', () => {
    const raw = Buffer.from(' \n {"model":"m","messages":[{"role":"user","content":"é \\u0041"}]}');
    const out = passthroughBody(ctxOf(raw, 'm'), 'gpt-x', [
      cacheKeyMember('bw-1'),
      USAGE_ASKED,
    ]).toString('utf8');
    expect(out).toBe(
      ' \n {"prompt_cache_key":"bw-1","stream_options":{"include_usage":true},"model":"gpt-x","messages":[{"role":"user","content":"é \\u0041"}]}',
    );
  });

  it('uses the span parse found, and finds the same one itself', () => {
    const raw = Buffer.from('{"messages":[{"model":"nested"}],"model":"m","n":1}');
    const start = raw.indexOf('"m"');
    const viaSpan = passthroughBody(ctxOf(raw, 'm', { start, end: start + 3 }), 'b', NO_MEMBERS);
    const scanned = passthroughBody(ctxOf(raw, 'm'), 'b', NO_MEMBERS);
    expect(viaSpan.toString()).toBe('{"messages":[{"model":"nested"}],"model":"b","n":1}');
    expect(scanned.equals(viaSpan)).toBe(true);
  });

  it('sends the client bytes themselves when nothing changes', () => {
    const raw = Buffer.from('{"model":"m"}');
    expect(passthroughBody(ctxOf(raw, 'm'), 'm', NO_MEMBERS)).toBe(raw);
    expect(withMembers(raw, NO_MEMBERS)).toBe(raw);
  });

  it('a body whose model cannot be edited in place is serialised again, members kept', () => {
    // The model given twice: JSON.parse keeps the last, so the byte edit is not shown safe.
    const raw = Buffer.from('{"model":"a","x":[1,{"y":null}],"model":"m"}');
    const out = passthroughBody(ctxOf(raw, 'm'), 'z"\\\n', [cacheKeyMember('k')]);
    expect(JSON.parse(out.toString('utf8'))).toEqual({
      prompt_cache_key: 'k',
      model: 'z"\\\n',
      x: [1, { y: null }],
    });
  });

  it('a cache key with characters JSON must escape stays valid JSON', () => {
    const out = withMembers(Buffer.from('{"model":"m"}'), [cacheKeyMember('a"b\\c\n')]);
    expect(JSON.parse(out.toString('utf8')).prompt_cache_key).toBe('a"b\\c\n');
  });

  it("the client's own stream_options are kept when usage is asked for again", () => {
    const raw = Buffer.from('{"model":"m","stream":true,"stream_options":{"x":1}}');
    const ctx = { ...ctxOf(raw, 'm'), streamOptions: { x: 1 } } as unknown as RequestContext;
    const again = usageAskedAgain(ctx, 'n');
    expect(JSON.parse(again!.toString('utf8'))).toEqual({
      model: 'n',
      stream: true,
      stream_options: { x: 1, include_usage: true },
    });
    const hostile = { ...ctx, streamOptions: null } as unknown as RequestContext;
    expect(JSON.parse(usageAskedAgain(hostile, 'n')!.toString('utf8')).stream_options).toEqual({
      include_usage: true,
    });
    expect(usageAskedAgain(ctxOf(raw, 'm'), 'n')).toBeNull();
  });
});
