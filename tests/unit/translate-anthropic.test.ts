import { describe, expect, it } from 'vitest';
import { estimateInputTokens, parseRequest } from '../../src/main/engine/translate';
import {
  errorFixture,
  goldenTranslations,
  requestCases,
  responseFixture,
  sseEvents,
  streamFixture,
  translateError,
  translateRequest,
  translateResponse,
  translateStream,
} from '../support/translate-fixtures';

const FROM = 'anthropic' as const;
const cases = requestCases(FROM);

describe('from Anthropic Messages: golden translations', () => {
  goldenTranslations(FROM, (to) => {
    it(`error → ${to}`, () => {
      const { status, body } = errorFixture(FROM);
      expect(translateError(FROM, to, status, body)).toMatchObject({
        error: { message: 'Overloaded', type: 'api_error', code: 'overloaded_error' },
      });
    });
  });
});

describe('from Anthropic Messages: what each feature becomes in Chat Completions', () => {
  const { body, dropped } = translateRequest(FROM, 'openai-chat', cases.tools_images_parallel!);
  const messages = body.messages as Record<string, unknown>[];

  it('system blocks become system messages, in order', () => {
    expect(messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are Claude Code, a coding assistant.' },
      { role: 'system', content: 'Repository root: /repo' },
    ]);
  });

  it('base64 images become data URLs and URL images stay URLs', () => {
    const parts = messages[2]!.content as { image_url?: { url: string } }[];
    expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(parts[2]!.image_url!.url).toBe('https://example.com/diagram.png');
  });

  it('parallel tool_use blocks become one assistant message with tool_calls, ids kept', () => {
    expect(messages[3]).toEqual({
      role: 'assistant',
      content: "I'll list the directory and read the README.",
      tool_calls: [
        {
          id: 'toolu_01A',
          type: 'function',
          function: { name: 'Bash', arguments: '{"command":"ls src"}' },
        },
        {
          id: 'toolu_01B',
          type: 'function',
          function: { name: 'Read', arguments: '{"file_path":"/repo/README.md"}' },
        },
      ],
    });
  });

  it('tool results become tool messages (errors marked), then the user text', () => {
    expect(messages.slice(4)).toEqual([
      { role: 'tool', tool_call_id: 'toolu_01A', content: 'main.ts\nutil.ts' },
      { role: 'tool', tool_call_id: 'toolu_01B', content: 'Error: File does not exist.' },
      { role: 'user', content: 'Keep going.' },
    ]);
  });

  it('sampling, stop sequences, max tokens and streaming carry over', () => {
    expect(body).toMatchObject({
      max_tokens: 4096,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['</answer>'],
      stream: true,
      stream_options: { include_usage: true },
      parallel_tool_calls: true,
      tool_choice: 'auto',
      user: 'user_abc',
    });
  });

  it('drops what Chat cannot express, and says so', () => {
    expect(dropped).toEqual(['top_k', 'cache_control', 'tools[web_search_20250305]']);
    expect((body.tools as unknown[]).length).toBe(2);
  });

  it('thinking becomes reasoning_effort; a forced tool stays forced without parallel calls', () => {
    const t = translateRequest(FROM, 'openai-chat', cases.thinking_forced_tool!).body;
    expect(t).toMatchObject({
      reasoning_effort: 'medium',
      tool_choice: { type: 'function', function: { name: 'Glob' } },
      parallel_tool_calls: false,
    });
    expect(translateRequest(FROM, 'openai-responses', cases.thinking_plain!).body).toMatchObject({
      reasoning: { effort: 'low' },
      instructions: 'Be brief.',
    });
  });

  it('signed thinking travels to Responses as a reasoning item with encrypted content', () => {
    const input = translateRequest(FROM, 'openai-responses', cases.thinking_forced_tool!).body
      .input as Record<string, unknown>[];
    expect(input[1]).toEqual({
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: 'The user wants a plan. I should read the code first.' },
      ],
      encrypted_content: 'EqQBCkYIBxgCKkDsig',
    });
  });
});

describe('from Anthropic Messages: answers', () => {
  it('cache reads and writes are counted in the input, cached tokens reported', () => {
    const chat = translateResponse(FROM, 'openai-chat', responseFixture(FROM));
    expect(chat.usage).toMatchObject({
      prompt_tokens: 2150,
      completion_tokens: 87,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
    const choice = (chat.choices as Record<string, unknown>[])[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
  });

  it('a stream keeps tool argument deltas as deltas', () => {
    const events = sseEvents(translateStream(FROM, 'openai-chat', streamFixture(FROM)));
    const argDeltas = events.filter((e) =>
      JSON.stringify(e.data).includes('"arguments":"\\"Paris\\"}"'),
    );
    expect(argDeltas).toHaveLength(1);
    expect(events.at(-1)!.data).toBe('[DONE]');
  });
});

describe('count_tokens estimate', () => {
  it('grows with the request and counts tools', () => {
    const small = estimateInputTokens(
      parseRequest(FROM, { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] })
        .value,
    );
    const big = estimateInputTokens(parseRequest(FROM, cases.tools_images_parallel!).value);
    expect(small).toBeGreaterThan(0);
    expect(big).toBeGreaterThan(small + 1600);
  });
});
