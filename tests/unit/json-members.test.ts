import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachMember, keyIs, lastMember } from '../../src/main/engine/wire/json-members';

const USAGE = Buffer.from('"usage"');

/** The last top-level `usage` member's value range as the forward walk finds it (null: none). */
function walked(raw: Buffer): [number, number] | null {
  let found: [number, number] | null = null;
  const ok = forEachMember(raw, (ks, ke, vs, ve) => {
    found = keyIs(raw, ks, ke, USAGE) ? [vs, ve] : null;
  });
  return ok ? found : null;
}

const text = (raw: Buffer, at: [number, number] | null) =>
  at ? raw.toString('utf8', at[0], at[1]) : null;

describe('lastMember: a last top-level member found from the end', () => {
  const key = fc.oneof(fc.string(), fc.constantFrom('usage', 'say "usage', 'usage\\', 'x'));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.constantFrom('"usage":{}', '\\"usage\\":1', 'usage'),
      fc.integer(),
      fc.constant(null),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('node'), { maxLength: 3 }),
    object: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  })).object;

  it('finds only what the forward walk finds, and only a last member', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('', ' ', '\t', '\n'), (v, space) => {
        const raw = Buffer.from(JSON.stringify(v, null, space));
        const fromEnd = lastMember(raw, USAGE);
        if (fromEnd === null) return;
        expect(Object.keys(v).at(-1)).toBe('usage');
        expect(text(raw, fromEnd)).toBe(text(raw, walked(raw)));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the usage of Chat and Anthropic answers, which put it last', () => {
    const chat = {
      id: 'c',
      choices: [{ message: { role: 'assistant', content: 'say "usage":{} \\' }, index: 0 }],
      usage: { prompt_tokens: 3, completion_tokens: 5 },
    };
    const anthropic = {
      id: 'm',
      content: [{ type: 'text', text: '"usage"' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 5 },
    };
    for (const answer of [chat, anthropic]) {
      const raw = Buffer.from(JSON.stringify(answer));
      expect(JSON.parse(text(raw, lastMember(raw, USAGE)) ?? 'null')).toEqual(answer.usage);
    }
  });

  it('leaves alone what only looks like a last usage member', () => {
    for (const body of [
      '{"say \\"usage":{"input_tokens":1}}',
      '{"a":{"usage":{"input_tokens":1}}}',
      '{"a":"usage"}',
      '{"usage":{"input_tokens":1}} trailing',
      '{"usage":{"input_tokens":1}',
      '{"usage": ',
      '"usage":{}}',
      '[{"usage":{}}]',
      '',
      '"usage"',
    ]) {
      expect(lastMember(Buffer.from(body), USAGE), body).toBeNull();
    }
  });

  it('reads the last one of a repeated key, with any spacing', () => {
    const raw = Buffer.from('{ "usage" : {"a":1} ,\n "usage" :\t{"a":2}\n}\n');
    expect(text(raw, lastMember(raw, USAGE))).toBe('{"a":2}');
  });
});
