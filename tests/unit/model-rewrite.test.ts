import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rewriteTopLevelModel } from '../../src/main/engine/wire/model-rewrite';

const rewrite = (text: string, model: string): string | null => {
  const out = rewriteTopLevelModel(Buffer.from(text, 'utf8'), model);
  return out === null ? null : out.toString('utf8');
};

/** What re-serialising would send: the reference the byte-level edit must match. */
const reserialised = (text: string, model: string): unknown => ({ ...JSON.parse(text), model });

/**
 * Serialises JSON with the liberties the grammar allows and JSON.stringify never takes:
 * whitespace between tokens and `\uXXXX` escapes for any character of any string, keys included.
 */
function render(value: unknown, ws: string, escapeAt: (i: number) => boolean): string {
  let n = 0;
  const str = (s: string): string => {
    let out = '"';
    for (const ch of s) {
      const plain = JSON.stringify(ch).slice(1, -1);
      if (escapeAt(n++) && ch.length === 1) {
        out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
      } else {
        out += plain;
      }
    }
    return `${out}"`;
  };
  const go = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${ws}${v.map(go).join(`${ws},${ws}`)}${ws}]`;
    if (v !== null && typeof v === 'object') {
      const members = Object.entries(v).map(([k, x]) => `${str(k)}${ws}:${ws}${go(x)}`);
      return `{${ws}${members.join(`${ws},${ws}`)}${ws}}`;
    }
    return JSON.stringify(v);
  };
  return `${ws}${go(value)}${ws}`;
}

const tricky = fc.constantFrom(
  'model',
  '"model"',
  '\\',
  '\\"',
  '"model":"x"',
  '}',
  '{',
  ']',
  'é',
  '😀',
  '\u2028',
);
const str = fc.oneof(fc.string(), tricky, fc.string({ unit: 'grapheme' }));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    str,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(str, fc.constant('model')), tie('value'), { maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, unknown>>;

/** A request body: any object with a top-level string `model` somewhere among its keys. */
const body = fc.tuple(json, fc.nat(), str).map(([obj, at, model]) => {
  const entries = Object.entries(obj).filter(([k]) => k !== 'model');
  entries.splice(at % (entries.length + 1), 0, ['model', model]);
  return Object.fromEntries(entries);
});

const ws = fc.constantFrom('', ' ', '\n', '\t', ' \r\n  ');

describe('rewriteTopLevelModel', () => {
  it('matches re-serialising for any body JSON.stringify writes, and never gives up on one', () => {
    fc.assert(
      fc.property(body, str, (obj, model) => {
        const text = JSON.stringify(obj);
        const out = rewrite(text, model);
        expect(out).not.toBeNull();
        expect(JSON.parse(out!)).toStrictEqual(reserialised(text, model));
        // Key order is kept too: the same bytes as re-serialising.
        expect(out).toBe(JSON.stringify(reserialised(text, model)));
      }),
      { numRuns: 500 },
    );
  });

  it('is equivalent to re-serialising, or declines, for any spacing and any escapes', () => {
    fc.assert(
      fc.property(
        json,
        str,
        ws,
        fc.array(fc.boolean(), { minLength: 1 }),
        (obj, model, space, mask) => {
          const text = render(obj, space, (i) => mask[i % mask.length]!);
          const out = rewrite(text, model);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          if (typeof parsed.model !== 'string') {
            expect(out).toBeNull();
            return;
          }
          expect(out).not.toBeNull();
          expect(JSON.parse(out!)).toStrictEqual(reserialised(text, model));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('changes only the bytes of the model value', () => {
    fc.assert(
      fc.property(body, str, ws, (obj, model, space) => {
        const text = render(obj, space, () => false);
        const out = rewrite(text, model)!;
        const old = JSON.stringify(obj.model);
        const neu = JSON.stringify(model);
        let p = 0;
        while (p < text.length && text[p] === out[p]) p++;
        let s = 0;
        while (s < text.length - p && text.at(-1 - s) === out.at(-1 - s)) s++;
        expect(text.length - p - s).toBeLessThanOrEqual(old.length);
        expect(out.length - text.length).toBe(neu.length - old.length);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves nested "model" keys and look-alikes inside strings alone', () => {
    const text =
      '{"messages":[{"role":"user","content":"say \\"model\\":\\"x\\""}],"metadata":{"model":"keep"},"model":"coder","stream":true}';
    expect(JSON.parse(rewrite(text, 'gpt-4o-mini')!)).toStrictEqual({
      messages: [{ role: 'user', content: 'say "model":"x"' }],
      metadata: { model: 'keep' },
      model: 'gpt-4o-mini',
      stream: true,
    });
  });

  it('escapes the new name as JSON', () => {
    expect(rewrite('{"model":"a"}', 'we"ird\\name\n')).toBe('{"model":"we\\"ird\\\\name\\n"}');
  });

  it('declines when the key is given twice, even spelled with escapes', () => {
    expect(rewrite('{"model":"a","model":"b"}', 'x')).toBeNull();
    expect(rewrite('{"model":"a","mod\\u0065l":"b"}', 'x')).toBeNull();
  });

  it('finds a key spelled with escapes', () => {
    expect(JSON.parse(rewrite('{"m\\u006fdel":"a","n":1}', 'x')!)).toStrictEqual({
      model: 'x',
      n: 1,
    });
  });

  it('declines what it cannot prove equivalent', () => {
    for (const text of [
      '',
      '[]',
      '{}',
      '"model"',
      '{"model":1}',
      '{"model":null}',
      '{"model":"a"',
      '{"model":"a"} x',
      '{"other":"a"}',
    ]) {
      expect(rewrite(text, 'x')).toBeNull();
    }
  });

  it('keeps the bytes of long strings on either side', () => {
    const long = 'x'.repeat(100_000);
    const text = JSON.stringify({ system: `${long}\\"`, model: 'coder', tail: long });
    expect(rewrite(text, 'gpt')).toBe(
      JSON.stringify({ system: `${long}\\"`, model: 'gpt', tail: long }),
    );
  });
});

describe('rewriteTopLevelModel on a body already parsed (knownValid)', () => {
  const known = (text: string, model: string): string | null => {
    const out = rewriteTopLevelModel(Buffer.from(text, 'utf8'), model, true);
    return out === null ? null : out.toString('utf8');
  };

  it('gives what the full scan gives, model first or not, for any spacing and escapes', () => {
    // Bodies with the model first, as SDKs write them, take the short way; a second "model"
    // key (escaped or not) elsewhere must still send them the long way.
    const first = fc.tuple(body, fc.boolean()).map(([obj, lead]) => {
      if (!lead) return obj;
      const { model, ...rest } = obj;
      return { model, ...rest };
    });
    fc.assert(
      fc.property(
        first,
        str,
        ws,
        fc.array(fc.boolean(), { minLength: 1 }),
        (obj, model, space, mask) => {
          const text = render(obj, space, (i) => mask[i % mask.length]!);
          expect(known(text, model)).toBe(rewrite(text, model));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('takes the short way only when no other key can be "model"', () => {
    expect(known('{"model":"a","messages":[]}', 'x')).toBe('{"model":"x","messages":[]}');
    expect(known('{ "model" : "a" , "n": 1 }', 'x')).toBe('{ "model" : "x" , "n": 1 }');
    // A duplicate, plain or spelled with an escape: JSON.parse keeps the last, so decline.
    expect(known('{"model":"a","model":"b"}', 'x')).toBeNull();
    expect(known('{"model":"a","mod\\u0065l":"b"}', 'x')).toBeNull();
    // The rest of the body is not read at all: what only the full scan would refuse passes.
    expect(known('{"model":"a", not json', 'x')).toBe('{"model":"x", not json');
    expect(rewrite('{"model":"a", not json', 'x')).toBeNull();
    // "model" as a value elsewhere only costs the full scan.
    expect(known('{"model":"a","role":"model"}', 'x')).toBe('{"model":"x","role":"model"}');
  });

  it('declines, without throwing, bodies shorter than a leading "model" key', () => {
    for (const text of ['{}', '{ }', '{"m":1}', '{"mod']) expect(known(text, 'x')).toBeNull();
  });
});
