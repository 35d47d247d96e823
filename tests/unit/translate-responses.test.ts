import { describe, expect, it } from 'vitest';
import {
  createStreamTranslator,
  emitResponse,
  parseRequest,
  TranslationError,
} from '../../src/main/engine/translate';
import type { IrResponse, Json } from '../../src/main/engine/translate/ir';
import { responseEvents } from '../../src/main/engine/translate/stream';
import {
  errorFixture,
  goldenTranslations,
  NOW_MS,
  requestCases,
  responseFixture,
  sseEvents,
  streamFixture,
  translateError,
  translateRequest,
  translateResponse,
  translateStream,
} from '../support/translate-fixtures';

const FROM = 'openai-responses' as const;
const cases = requestCases(FROM);

describe('from Responses: golden translations', () => goldenTranslations(FROM));

describe('from Responses: a Codex turn in Chat Completions and Anthropic Messages', () => {
  const chat = translateRequest(FROM, 'openai-chat', cases.codex_tool_loop!);
  const messages = chat.body.messages as Record<string, unknown>[];

  it('instructions and developer messages become system messages', () => {
    expect(messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are Codex, a coding agent running in a terminal.' },
      { role: 'system', content: 'Sandbox: workspace-write.' },
    ]);
  });

  it('function_call items become one assistant turn with parallel tool_calls, outputs tool messages', () => {
    expect(messages[3]).toMatchObject({
      role: 'assistant',
      tool_calls: [
        { id: 'call_1', function: { name: 'shell', arguments: '{"command":["npm","test"]}' } },
        { id: 'call_2', function: { name: 'shell', arguments: '{"command":["cat","a.ts"]}' } },
      ],
    });
    expect(messages.slice(4, 6)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '1 failing' },
      { role: 'tool', tool_call_id: 'call_2', content: 'export const a = 1;' },
    ]);
  });

  it('reasoning effort and max_output_tokens carry over; hosted tools are dropped and named', () => {
    expect(chat.body).toMatchObject({ reasoning_effort: 'medium', max_tokens: 8000, stream: true });
    expect(chat.dropped).toEqual(['tools[web_search]', 'reasoning history']);
  });

  it('the encrypted reasoning goes back to Anthropic as a signed thinking block', () => {
    const an = translateRequest(FROM, 'anthropic', cases.codex_tool_loop!).body;
    const assistant = (an.messages as { role: string; content: Record<string, unknown>[] }[])[1]!;
    expect(assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Need to run the tests first.',
      signature: 'gAAAAABoEnc',
    });
    expect(an).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 7999 },
      max_tokens: 8000,
    });
  });

  it('state held by OpenAI cannot be translated: previous_response_id is refused', () => {
    expect(() =>
      parseRequest(FROM, { model: 'm', input: 'x', previous_response_id: 'resp_1' }),
    ).toThrow(TranslationError);
  });
});

describe('from Responses: answers', () => {
  it('output items become Chat tool calls with usage and cached tokens', () => {
    const c = translateResponse(FROM, 'openai-chat', responseFixture(FROM));
    expect(c.choices).toMatchObject([
      {
        finish_reason: 'tool_calls',
        message: {
          content: 'Checking both cities.',
          reasoning_content: 'The user asked for both cities.',
        },
      },
    ]);
    expect(c.usage).toMatchObject({
      prompt_tokens: 2150,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
  });

  it('an incomplete response (max_output_tokens) is a max_tokens stop', () => {
    const body = {
      ...responseFixture(FROM),
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    };
    expect(translateResponse(FROM, 'anthropic', body).stop_reason).toBe('max_tokens');
    expect(translateResponse(FROM, 'openai-chat', body).choices).toMatchObject([
      { finish_reason: 'length' },
    ]);
  });

  it('a stream to Anthropic carries the signature of the reasoning', () => {
    const events = sseEvents(translateStream(FROM, 'anthropic', streamFixture(FROM)));
    expect(events.map((e) => e.data)).toContainEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: 'gAAAAABoSig' },
    });
  });

  it('errors keep code and param meaning', () => {
    const { status, body } = errorFixture(FROM);
    expect(translateError(FROM, 'anthropic', status, body)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'invalid_value' },
    });
  });
});

describe('from Responses: freeform (custom) tools such as Codex apply_patch', () => {
  const custom = new Set(['apply_patch']);

  it('become a function with one string argument, input; history calls keep their text', () => {
    const t = translateRequest(FROM, 'openai-chat', cases.codex_freeform_tool!);
    expect(t.dropped).toEqual([]);
    const tool = (t.body.tools as { function: { name: string; parameters: Json } }[])[0]!;
    expect(tool.function.name).toBe('apply_patch');
    expect(tool.function.parameters).toMatchObject({ required: ['input'] });
    expect(JSON.stringify(tool.function.parameters)).toContain('*** Begin Patch');
    const messages = t.body.messages as Json[];
    const call = (messages[2]!.tool_calls as { function: { arguments: string } }[])[0]!;
    expect(JSON.parse(call.function.arguments).input).toMatch(/^\*\*\* Begin Patch\n/);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_patch1' });
  });

  const patch = '*** Begin Patch\n*** Add File: x.ts\n+x\n*** End Patch\n';
  const answer: IrResponse = {
    id: 'chatcmpl-1',
    model: 'm',
    parts: [
      {
        type: 'tool_call',
        id: 'call_9',
        name: 'apply_patch',
        arguments: JSON.stringify({ input: patch }),
      },
    ],
    stop: 'tool_use',
    stopSequence: null,
    usage: { input: 1, output: 1, cached: null, cacheCreation: null, reasoning: null },
  };

  it('their calls come back as custom_tool_call items with the raw input', () => {
    const r = emitResponse('openai-responses', answer, { nowMs: NOW_MS, customTools: custom });
    expect(r.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: 'call_9',
        name: 'apply_patch',
        input: patch,
      }),
    ]);
  });

  it('and stream as custom_tool_call_input events', () => {
    const t = createStreamTranslator('openai-chat', 'openai-responses', {
      nowMs: NOW_MS,
      includeUsage: false,
      customTools: custom,
    });
    const text = t.apply(responseEvents(answer)) + t.close();
    const events = sseEvents(text);
    expect(events.map((e) => e.event)).toContain('response.custom_tool_call_input.done');
    expect(
      events.find((e) => e.event === 'response.custom_tool_call_input.done')!.data,
    ).toMatchObject({
      input: patch,
    });
    expect(events.at(-1)!.data).toMatchObject({
      response: { output: [{ type: 'custom_tool_call', input: patch }] },
    });
  });
});
