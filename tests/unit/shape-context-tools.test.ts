import { describe, expect, it } from 'vitest';
import {
  fitRatio,
  isPromptTooLong,
  trimConversation,
} from '../../src/main/engine/resilience/shape/context-trim';
import { readToolLimit, toolCount } from '../../src/main/engine/resilience/shape/tool-limit';

const err = (message: string, code: string | null = null) => ({ message, param: null, code });

describe('context editing: the pure trim', () => {
  it('reads each provider’s wording and the numbers it gives', () => {
    const anthropic = err('prompt is too long: 250000 tokens > 200000 maximum');
    expect(isPromptTooLong(anthropic)).toBe(true);
    expect(fitRatio(anthropic)).toBe(0.8);
    const openai = err(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 160000 tokens. Please reduce the length of the messages.",
      'context_length_exceeded',
    );
    expect(isPromptTooLong(openai)).toBe(true);
    expect(fitRatio(openai)).toBe(0.8);
    expect(isPromptTooLong(err('Please reduce the length of the messages or completion.'))).toBe(
      true,
    );
    expect(isPromptTooLong(err('temperature: range: 0..1'))).toBe(false);
  });

  const user = (t: string) => ({ role: 'user', content: t });
  const assistant = (t: string) => ({ role: 'assistant', content: t });

  it('keeps the system prompt, the first turn and the latest; drops the oldest whole turns', () => {
    const messages = [
      { role: 'system', content: 'sys' },
      user('first'),
      assistant('a1'),
      user('second'),
      assistant('a2'),
      user('third'),
      assistant('a3'),
      user('latest'),
    ];
    const out = trimConversation({ model: 'm', messages }, null);
    expect(out?.removed).toBe(1); // half of the two droppable turns
    expect((out!.body.messages as { content: string }[]).map((m) => m.content)).toEqual([
      'sys',
      'first',
      'a1',
      'third',
      'a3',
      'latest',
    ]);
    expect(messages).toHaveLength(8); // the input is not changed
  });

  it('never splits a tool call from its result (Anthropic tool_result turns continue the turn)', () => {
    const messages = [
      user('first'),
      assistant('a1'),
      user('second'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
      assistant('done'),
      user('latest'),
    ];
    const out = trimConversation({ messages }, 0.1);
    expect(out?.removed).toBe(1);
    expect(out?.body.messages).toEqual([user('first'), assistant('a1'), user('latest')]);
  });

  it('Responses input items; nothing to drop gives null', () => {
    const input = [
      { type: 'message', role: 'user', content: 'first' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: 'o' },
      { type: 'message', role: 'user', content: 'second' },
      { type: 'message', role: 'user', content: 'latest' },
    ];
    expect(trimConversation({ input }, null)?.body.input).toEqual([
      input[0],
      input[1],
      input[2],
      input[4],
    ]);
    expect(trimConversation({ messages: [user('a'), assistant('b'), user('c')] }, null)).toBeNull();
  });
});

describe('tool-count limit: the pure readers', () => {
  it('reads OpenAI, Anthropic and JSON-schema wordings, and nothing else', () => {
    expect(
      readToolLimit(
        err(
          "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 200 instead.",
        ),
      ),
    ).toBe(128);
    expect(readToolLimit(err('tools: List should have at most 64 items after validation'))).toBe(
      64,
    );
    expect(readToolLimit(err("'tools' : maximum number of items is 32"))).toBe(32);
    expect(readToolLimit(err("Invalid 'messages': array too long."))).toBeNull();
  });

  it('counts tools in each API’s shape', () => {
    expect(toolCount({ tools: [{}, {}, {}] })).toBe(3);
    expect(toolCount({ tools: [{ functionDeclarations: [{}, {}] }, { googleSearch: {} }] })).toBe(
      3,
    );
    expect(toolCount({})).toBe(0);
  });
});
