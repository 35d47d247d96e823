import { describe, expect, it } from 'vitest';
import { emitRequest, parseRequest } from '../../src/main/engine/translate';
import {
  addBreakpoints,
  MAX_BREAKPOINTS,
  ttlFor,
} from '../../src/main/engine/translate/cache-breakpoints';

type Json = Record<string, unknown>;

const marks = (body: unknown) => JSON.stringify(body).split('"cache_control"').length - 1;

function conversation(): Json {
  return {
    model: 'claude-test',
    system: 'You are an agent.',
    tools: [
      { name: 'a', input_schema: { type: 'object' } },
      { name: 'b', input_schema: { type: 'object' } },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'three' }] },
    ],
  };
}

describe('breakpoints for clients that cannot write them (docs/translation.md)', () => {
  it('the newest turn, the system prompt, the tools and the turn before: four in all', () => {
    const body = conversation();
    expect(addBreakpoints(body, '5m')).toBe(4);
    const m = body.messages as Json[];
    const last = (i: number) => (m[i]!.content as Json[]).at(-1)!;
    expect(last(4).cache_control).toEqual({ type: 'ephemeral' });
    expect(last(2).cache_control).toEqual({ type: 'ephemeral' });
    expect(last(0).cache_control).toBeUndefined();
    expect(body.system).toEqual([
      { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } },
    ]);
    expect((body.tools as Json[])[1]!.cache_control).toEqual({ type: 'ephemeral' });
    expect((body.tools as Json[])[0]!.cache_control).toBeUndefined();
    expect(marks(body)).toBe(MAX_BREAKPOINTS);
  });

  it('the 1-hour TTL when the client asked for 24 h retention; 5 minutes otherwise', () => {
    expect(ttlFor('24h')).toBe('1h');
    expect(ttlFor('in_memory')).toBe('5m');
    expect(ttlFor(null)).toBe('5m');
    const body = conversation();
    addBreakpoints(body, '1h');
    expect((body.system as Json[])[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
  });

  it('never where the client placed its own: a request with any keeps exactly those', () => {
    const body = conversation();
    const m = body.messages as Json[];
    ((m[2]!.content as Json[])[0] as Json).cache_control = { type: 'ephemeral', ttl: '1h' };
    expect(addBreakpoints(body, '5m')).toBe(0);
    expect(marks(body)).toBe(1);
    expect(body.system).toBe('You are an agent.');
  });

  it("a Chat client's own cache_control (on content parts) reaches Anthropic where it put it", () => {
    const chat = parseRequest('openai-chat', {
      model: 'm',
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: 'long document',
              cache_control: { type: 'ephemeral', ttl: '1h' },
            },
            { type: 'text', text: 'question' },
          ],
        },
      ],
    });
    const sent = emitRequest('anthropic', chat.value, 'anthropic', { breakpoints: true }).value;
    expect(sent.system).toEqual([
      { type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } },
    ]);
    const content = (sent.messages as Json[])[0]!.content as Json[];
    expect(content[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(content[1]!.cache_control).toBeUndefined();
    expect(marks(sent)).toBe(2);
  });

  it('skips thinking blocks, which cannot carry a breakpoint', () => {
    const body: Json = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'q' },
            { type: 'thinking', thinking: 't', signature: 's' },
          ],
        },
      ],
    };
    addBreakpoints(body, '5m');
    const content = (body.messages as Json[])[0]!.content as Json[];
    expect(content[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(content[1]!.cache_control).toBeUndefined();
  });

  it('garbage in the places it looks is left alone, never a throw', () => {
    for (const body of [
      {},
      { messages: null, tools: 'x', system: 3 },
      { messages: [null, 1, 'x', { role: 'user', content: 'text' }], tools: [null], system: [] },
      { messages: [{ role: 'user', content: [null, 7] }], system: '' },
    ] as Json[]) {
      expect(() => addBreakpoints(body, '5m')).not.toThrow();
    }
    const empty: Json = { system: '' };
    addBreakpoints(empty, '5m');
    expect(empty.system).toBe('');
  });

  it('a Chat request translated with breakpoints on; none when the provider turned them off', () => {
    const chat = parseRequest('openai-chat', {
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
    });
    const on = emitRequest('anthropic', chat.value, 'anthropic', { breakpoints: true });
    expect(marks(on.value)).toBe(2);
    expect(on.dropped).toEqual(['prompt_cache_key']);
    const off = emitRequest('anthropic', chat.value, 'anthropic', { breakpoints: false });
    expect(marks(off.value)).toBe(0);
    expect(off.dropped).toEqual(['prompt_cache_key', 'prompt_cache_retention']);
  });

  it('prompt_cache_key and prompt_cache_retention survive Chat ↔ Responses', () => {
    const chat = parseRequest('openai-chat', {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      prompt_cache_key: 'k1',
      prompt_cache_retention: '24h',
    });
    expect(chat.dropped).toEqual([]);
    const responses = emitRequest('openai-responses', chat.value).value;
    expect(responses).toMatchObject({ prompt_cache_key: 'k1', prompt_cache_retention: '24h' });
    const back = emitRequest('openai-chat', parseRequest('openai-responses', responses).value);
    expect(back.value).toMatchObject({ prompt_cache_key: 'k1', prompt_cache_retention: '24h' });
  });
});
