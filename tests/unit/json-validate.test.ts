import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachMember } from '../../src/main/engine/wire/json-members';
import { isValidJson } from '../../src/main/engine/wire/json-validate';

/** What the validator must agree with: JSON.parse of the bytes decoded as UTF-8. */
function parses(b: Buffer): boolean {
  try {
    JSON.parse(b.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function agree(b: Buffer): void {
  expect(isValidJson(b), JSON.stringify(b.toString('utf8'))).toBe(parses(b));
}

/** JSON with whitespace of every allowed kind between tokens. */
const spaced = fc
  .tuple(fc.jsonValue(), fc.array(fc.constantFrom(' ', '\n', '\r', '\t', '  \n'), { minLength: 1 }))
  .map(([v, ws]) => {
    let k = 0;
    return JSON.stringify(v, null, 1).replace(/\n\s*/g, () => ws[k++ % ws.length]!);
  });

const SIGNIFICANT = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ',',
  ':',
  '\\',
  '-',
  '+',
  '.',
  '0',
  '1',
  'e',
  'E',
  't',
  'f',
  'n',
  'u',
  'x',
  ' ',
  '\n',
  '\u0000',
  '\u001f',
  '\u00e9',
  '\u2028',
  '\ud800',
];

describe('isValidJson agrees with JSON.parse', () => {
  it('on any JSON value, compact, indented or spaced', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(isValidJson(Buffer.from(JSON.stringify(v)))).toBe(true);
        expect(isValidJson(Buffer.from(JSON.stringify(v, null, 2)))).toBe(true);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(spaced, (text) => {
        agree(Buffer.from(text));
      }),
      { numRuns: 300 },
    );
  });

  it('on JSON with characters inserted, deleted or replaced anywhere', () => {
    const edit = fc.record({
      kind: fc.constantFrom('insert', 'delete', 'replace'),
      at: fc.nat(),
      ch: fc.constantFrom(...SIGNIFICANT),
    });
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(edit, { minLength: 1, maxLength: 3 }), (v, edits) => {
        let text = JSON.stringify(v, null, 1);
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          if (e.kind === 'insert') text = text.slice(0, at) + e.ch + text.slice(at);
          else if (e.kind === 'delete') text = text.slice(0, at) + text.slice(at + 1);
          else text = text.slice(0, at) + e.ch + text.slice(at + 1);
        }
        agree(Buffer.from(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('on any slice of a request', () => {
    const request = Buffer.from(
      JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'é "q" \\ \n' }],
        n: -1.5e3,
      }),
    );
    fc.assert(
      fc.property(fc.nat(request.length), fc.nat(request.length), (a, b) => {
        agree(request.subarray(Math.min(a, b), Math.max(a, b)));
      }),
      { numRuns: 500 },
    );
  });

  it('on the corners of the grammar', () => {
    const cases = [
      '',
      ' ',
      '{}',
      '[]',
      ' {} ',
      '{} x',
      '{}{}',
      '{"a":1,}',
      '[1,]',
      '{"a"}',
      '{1:2}',
      '{"a" 1}',
      '01',
      '-',
      '-0',
      '1.',
      '.5',
      '1e',
      '1e+',
      '1E-2',
      '+1',
      '0.0e0',
      'tru',
      'true',
      'nul',
      'null',
      'False',
      'f',
      '"\\x"',
      '"\\u12"',
      '"\\u12G4"',
      '"\\uD800"',
      '"\\/"',
      '"a\tb"',
      '"a\u007fb"',
      '\ufeff{}',
      '[[[]]]',
      '[[[]]',
      '{"a":{"b":[1,{"c":null}]}}',
      '"unterminated',
      '"\\"',
      '{"a":1 "b":2}',
      '[1 2]',
      '[,1]',
      '{,}',
      '\u00a0{}',
    ];
    for (const text of cases) agree(Buffer.from(text));
    agree(Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`));
  });

  it('on large bodies at every alignment, with control bytes inside strings and between tokens', () => {
    // Bodies with no stray control byte take a path of their own (native searches for what ends
    // a string); the byte positions and the buffer's offset in its memory vary here.
    const long = 'x'.repeat(300);
    const controls = ['\t', '\n', '\r', '\u0000', '\u0008', '\u000b', '\u001f'];
    fc.assert(
      fc.property(
        fc.constantFrom(...controls),
        fc.nat(700),
        fc.nat(3),
        fc.boolean(),
        (ch, at, offset, pretty) => {
          const text = JSON.stringify(
            { a: long, b: [long, { c: long }], d: '\\"' },
            null,
            pretty ? 2 : 0,
          );
          const i = at % (text.length + 1);
          const edited = Buffer.from(text.slice(0, i) + ch + text.slice(i));
          const shifted = Buffer.alloc(edited.length + offset);
          edited.copy(shifted, offset);
          agree(shifted.subarray(offset));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('on short views that end near the end of their memory, at any offset', () => {
    // No whole aligned word inside: a word view there would start past the memory's end.
    for (const text of ['', '1', '[]', '"\u0001"', '{}', 'null', '[1,2]', '"a\tb"']) {
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < 4; offset++) {
        for (let spare = 0; spare < 4; spare++) {
          const memory = new ArrayBuffer(offset + bytes.length + spare);
          const view = Buffer.from(memory, offset, bytes.length);
          bytes.copy(view);
          agree(view);
        }
      }
    }
  });

  it('on bytes that are not UTF-8, inside and outside strings', () => {
    agree(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
    agree(Buffer.from([0x22, 0xc3, 0x22]));
    agree(Buffer.from([0x5b, 0xff, 0x5d]));
    agree(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]));
  });
});

describe('isValidJson reports the top-level members', () => {
  type Ranges = [number, number, number, number][];
  const visited = (b: Buffer): Ranges => {
    const out: Ranges = [];
    expect(isValidJson(b, (...r) => out.push(r))).toBe(true);
    return out;
  };
  const members = (b: Buffer): Ranges => {
    const out: Ranges = [];
    expect(forEachMember(b, (...r) => out.push(r))).toBe(true);
    return out;
  };

  it('as forEachMember finds them, for any object, compact or spaced', () => {
    const objects = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue()).map((o) => JSON.stringify(o)),
      spaced.filter((s) => s.trimStart().startsWith('{')),
    );
    fc.assert(
      fc.property(objects, (text) => {
        const b = Buffer.from(text);
        expect(visited(b)).toEqual(members(b));
      }),
      { numRuns: 500 },
    );
  });

  it('not at all for a text that is not an object', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
        (v) => {
          let calls = 0;
          expect(isValidJson(Buffer.from(JSON.stringify(v)), () => calls++)).toBe(true);
          expect(calls).toBe(0);
        },
      ),
    );
  });
});
