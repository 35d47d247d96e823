import { describe, expect, it } from 'vitest';
import {
  compileRules,
  explainRules,
  globPattern,
  pickRule,
  type RequestFacts,
} from '../../src/main/engine/routing/rules';

/** Facts whose body-reading parts fail the test when called. */
function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  const untouched = (what: string) => () => {
    throw new Error(`${what} was read`);
  };
  return {
    model: 'claude-haiku-4-5-20251001',
    client: 'anthropic',
    key: null,
    thinking: untouched('thinking'),
    images: untouched('images'),
    webSearch: untouched('webSearch'),
    webSearchByTool: untouched('webSearchByTool'),
    tools: untouched('tools'),
    inputTokens: untouched('inputTokens'),
    ...over,
  };
}

describe('routing rules', () => {
  it('globs case-insensitively and whole', () => {
    expect(globPattern('claude-*haiku*').test('Claude-3-5-HAIKU-latest')).toBe(true);
    expect(globPattern('gpt-5*').test('gpt-5-mini')).toBe(true);
    expect(globPattern('gpt-5').test('gpt-5-mini')).toBe(false);
    expect(globPattern('a.b?').test('axbc')).toBe(false);
    expect(globPattern('a.b?').test('a.bc')).toBe(true);
  });

  it('compiles no rules to nothing', () => {
    expect(compileRules([])).toBeNull();
  });

  it('does not read the body for a rule the model already decides', () => {
    const book = compileRules([
      { name: 'bg', when: { model: 'claude-*haiku*' }, use: 'cheap' },
      { name: 'think', when: { model: 'nope', thinking: true }, use: 'deep' },
    ])!;
    expect(pickRule(book, facts())?.name).toBe('bg');
    // The model check comes first, so the second rule misses without reading thinking.
    expect(pickRule(book, facts({ model: 'gpt-5' }))).toBeNull();
  });

  it('says why each rule before the match missed', () => {
    const book = compileRules([
      { name: 'bg', when: { model: 'claude-*haiku*' }, use: 'cheap' },
      { name: 'long', when: { minInputTokens: 60_000 }, use: 'wide' },
      { name: 'keyed', when: { key: 'ci' }, use: 'ci' },
      { name: 'tools', when: { tools: false }, use: 'plain' },
    ]);
    const result = explainRules(
      book,
      facts({ model: 'claude-sonnet-4-5', inputTokens: () => 1200, tools: () => false }),
    );
    expect(result.matched).toEqual({ name: 'tools', use: 'plain' });
    expect(result.missed).toEqual([
      { name: 'bg', why: 'model claude-sonnet-4-5 is not claude-*haiku*' },
      { name: 'long', why: '~1200 tokens in, under 60000' },
      { name: 'keyed', why: 'key is none, not ci' },
    ]);
  });
});
