import { describe, expect, it } from 'vitest';
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

const FROM = 'openai-chat' as const;
const cases = requestCases(FROM);

describe('from Chat Completions: golden translations', () => goldenTranslations(FROM));

describe('from Chat Completions: what each feature becomes in Anthropic Messages', () => {
  const { body, dropped } = translateRequest(FROM, 'anthropic', cases.tools_images_parallel!);
  const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];

  it('system and developer messages become the system prompt', () => {
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a helpful assistant.' },
      { type: 'text', text: 'Answer in English.' },
    ]);
  });

  it('data-URL images become base64 sources, other URLs url sources', () => {
    expect(messages[0]!.content[1]).toEqual({
      type: 'image',
      source: {
        type: 'base64',
        media_type: 'image/jpeg',
        data: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP8=',
      },
    });
    expect(messages[0]!.content[2]).toEqual({
      type: 'image',
      source: { type: 'url', url: 'https://example.com/cat.jpg' },
    });
  });

  it('parallel tool calls become tool_use blocks with parsed input; results share one user turn', () => {
    expect(messages[1]!.content).toEqual([
      { type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_def', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'call_abc',
          content: [{ type: 'text', text: '21C, sunny' }],
        },
        {
          type: 'tool_result',
          tool_use_id: 'call_def',
          content: [{ type: 'text', text: '4C, rain' }],
        },
      ],
    });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('tool_choice, parallel_tool_calls, max tokens, sampling and stop carry over', () => {
    expect(body).toMatchObject({
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      max_tokens: 2048,
      temperature: 0.5,
      top_p: 0.95,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-123' },
      stream: true,
    });
    expect(body.stream_options).toBeUndefined();
  });

  it('drops what Anthropic cannot express, and says so', () => {
    expect(dropped).toEqual(['seed']);
    expect(translateRequest(FROM, 'anthropic', cases.reasoning_json!).dropped).toEqual([
      'logprobs',
      'reasoning (max_tokens too small)',
      'reasoning history',
      'response_format',
    ]);
  });

  it('reasoning_effort becomes a thinking budget below max_tokens, and temperature goes', () => {
    const t = translateRequest(FROM, 'anthropic', {
      ...cases.tools_images_parallel!,
      reasoning_effort: 'low',
      tool_choice: 'auto',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(t.body).toMatchObject({
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 2047 },
    });
    expect(t.body.temperature).toBeUndefined();
    expect(t.dropped).toContain('temperature');
    // Too small a max_tokens for Anthropic's minimum budget of 1024: no thinking, said so.
    expect(translateRequest(FROM, 'anthropic', cases.reasoning_json!).body).toMatchObject({
      max_tokens: 1000,
      stop_sequences: ['\n\n', '###'],
      tool_choice: { type: 'none' },
    });
  });
});

describe('from Chat Completions: answers', () => {
  it('finish reasons, tool calls and cached usage map to Anthropic', () => {
    const msg = translateResponse(FROM, 'anthropic', responseFixture(FROM));
    expect(msg).toMatchObject({
      type: 'message',
      stop_reason: 'tool_use',
      usage: { input_tokens: 150, cache_read_input_tokens: 2000, output_tokens: 87 },
    });
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'The user asked for both cities.', signature: '' },
      { type: 'text', text: 'Checking both cities.' },
      { type: 'tool_use', id: 'call_Paris1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_Oslo2', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('an Anthropic stream has the documented event order', () => {
    const names = sseEvents(translateStream(FROM, 'anthropic', streamFixture(FROM))).map(
      (e) => e.event,
    );
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    // Every content_block_start is closed by its content_block_stop before the next opens.
    let open = 0;
    for (const n of names) {
      if (n === 'content_block_start') expect(open++).toBe(0);
      if (n === 'content_block_stop') expect(--open).toBe(0);
    }
    expect(names.filter((n) => n === 'content_block_start')).toHaveLength(4);
  });

  it('errors keep their meaning in the other error shapes', () => {
    const { status, body } = errorFixture(FROM);
    expect(translateError(FROM, 'anthropic', status, body)).toEqual({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM).',
        code: 'rate_limit_exceeded',
      },
    });
  });
});

describe('errors between the two OpenAI shapes', () => {
  it('keep code and message both ways', () => {
    const chat = errorFixture('openai-chat');
    expect(translateError(FROM, 'openai-responses', chat.status, chat.body)).toMatchObject({
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    });
    const resp = errorFixture('openai-responses');
    expect(translateError('openai-responses', FROM, resp.status, resp.body)).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_value' },
    });
  });

  it('a temperature above Anthropic’s range is capped and said so', () => {
    const t = translateRequest(FROM, 'anthropic', {
      model: 'm',
      temperature: 1.5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(t.body.temperature).toBe(1);
    expect(t.dropped).toEqual(['temperature above 1']);
  });
});

describe('from Chat Completions: the service tier the provider reports', () => {
  const chunk = (tier: string) =>
    `data: ${JSON.stringify({ id: 'c1', model: 'm', service_tier: tier, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

  it('is the Anthropic answer’s usage.service_tier, in Anthropic’s names', () => {
    const body = { ...responseFixture(FROM), service_tier: 'priority' };
    expect(translateResponse(FROM, 'anthropic', body).usage).toMatchObject({
      service_tier: 'priority',
    });
    const start = sseEvents(translateStream(FROM, 'anthropic', chunk('default')))[0]!.data;
    expect(start).toMatchObject({ message: { usage: { service_tier: 'standard' } } });
  });

  it('is null when the provider named none', () => {
    const { service_tier: _, ...body } = responseFixture(FROM);
    expect(translateResponse(FROM, 'anthropic', body).usage).toMatchObject({
      service_tier: null,
    });
  });
});
