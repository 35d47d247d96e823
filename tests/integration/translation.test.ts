import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeUpstream, RecordedRequest } from '../support/fake-upstream';
import { ANTHROPIC_KEY, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

// Providers: `oc` speaks Chat Completions only, `oa` speaks Chat and Responses (OpenAI), `an`
// speaks Anthropic Messages, all on the primary fake. Combos give clients fixed model names.
function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oc',
        format: 'openai-chat',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oc-1', apiKey: OPENAI_KEY }],
        models: ['chat-model'],
      },
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: ['gpt-test'],
      },
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: ANTHROPIC_KEY }],
        models: ['claude-test'],
      },
    ],
    combos: [
      // What Claude Code asks for, served by a Chat Completions provider.
      { name: 'claude-sonnet-4-5', strategy: 'priority', targets: ['oc/chat-model'] },
      // What Codex asks for, served by an Anthropic provider.
      { name: 'gpt-5', strategy: 'priority', targets: ['an/claude-test'] },
    ],
  };
}

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'any', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'any', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  // A scripted 429 cools its connection down; each test starts from a clean slate.
  gw.resetResilience();
});

const weatherArgs = { city: 'Paris', unit: 'celsius' };
const timeArgs = { timezone: 'Europe/Paris' };

const anthropicTools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    input_schema: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
    },
  },
  {
    name: 'get_time',
    description: 'Current time in a timezone',
    input_schema: { type: 'object', properties: { timezone: { type: 'string' } } },
  },
];

const chatTools: OpenAI.Chat.ChatCompletionTool[] = anthropicTools.map((t) => ({
  type: 'function',
  function: {
    name: t.name,
    description: t.description ?? '',
    parameters: t.input_schema as Record<string, unknown>,
  },
}));

const responsesTools: OpenAI.Responses.FunctionTool[] = anthropicTools.map((t) => ({
  type: 'function',
  name: t.name,
  description: t.description ?? null,
  parameters: t.input_schema as Record<string, unknown>,
  strict: false,
}));

/** Tool-result ids in an upstream request, whatever its format. */
function toolResultIds(req: RecordedRequest): string[] {
  if (req.path.endsWith('/chat/completions')) {
    return req.body.messages
      .filter((m: { role: string }) => m.role === 'tool')
      .map((m: { tool_call_id: string }) => m.tool_call_id);
  }
  if (req.path.endsWith('/messages')) {
    return req.body.messages.flatMap((m: { content: unknown }) =>
      Array.isArray(m.content)
        ? m.content
            .filter((b: { type: string }) => b.type === 'tool_result')
            .map((b: { tool_use_id: string }) => b.tool_use_id)
        : [],
    );
  }
  return req.body.input
    .filter((i: { type?: string }) => i.type === 'function_call_output')
    .map((i: { call_id: string }) => i.call_id);
}

/** Script a three-turn loop: one call, then two parallel calls, then the answer. */
function scriptLoop(fake: FakeUpstream): void {
  fake.script(
    { toolCalls: [{ id: 'call_one', name: 'get_weather', arguments: weatherArgs }] },
    {
      text: 'Checking both.',
      toolCalls: [
        { id: 'call_two', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_three', name: 'get_time', arguments: timeArgs },
      ],
    },
    { text: 'It is 21 degrees in Paris.' },
  );
}

describe('Anthropic SDK against a Chat Completions provider', () => {
  it('streams parallel tool calls with argument deltas, in Anthropic event order', async () => {
    gw.primary.script({
      text: 'Let me look.',
      toolCalls: [
        { name: 'get_weather', arguments: weatherArgs },
        { name: 'get_time', arguments: timeArgs },
      ],
    });
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are terse.',
      tools: anthropicTools,
      messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
    });
    const types: string[] = [];
    let jsonDeltas = 0;
    stream.on('streamEvent', (e) => {
      types.push(e.type);
      if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') jsonDeltas++;
    });
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-2)).toBe('message_delta');
    expect(types.at(-1)).toBe('message_stop');
    expect(jsonDeltas).toBeGreaterThan(2);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toMatchObject([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', name: 'get_weather', input: weatherArgs },
      { type: 'tool_use', name: 'get_time', input: timeArgs },
    ]);
    expect(final.usage.output_tokens).toBeGreaterThan(0);

    const seen = gw.primary.requests.at(-1)!;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(seen.body).toMatchObject({
      model: 'chat-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather and time in Paris?' },
      ],
    });
    expect(seen.body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather' },
    });
  });

  it('sends the first event before the upstream has finished', async () => {
    gw.primary.script({ chunks: 4, chunkDelayMs: 250 });
    const started = Date.now();
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let firstText = 0;
    stream.on('text', () => {
      if (!firstText) firstText = Date.now() - started;
    });
    await stream.finalMessage();
    expect(firstText).toBeGreaterThan(0);
    expect(firstText).toBeLessThan(Date.now() - started - 500);
  });

  it('labels the translation and what it dropped, and answers non-streaming requests', async () => {
    // Anthropic's top_k has no counterpart in Chat Completions.
    const noCounterpart = { top_k: 5 };
    const res = await anthropic.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        ...noCounterpart,
      })
      .withResponse();
    expect(res.data.content[0]).toMatchObject({ type: 'text' });
    expect(res.data.stop_reason).toBe('end_turn');
    expect(res.response.headers.get('x-breakwater-translated')).toBe('anthropic -> openai-chat');
    expect(res.response.headers.get('x-breakwater-dropped')).toBe('top_k');
  });

  it('returns upstream errors in the Anthropic error shape', async () => {
    // Longer than comboCooldownWait.maxWaitMs, so the error is answered, not waited out.
    gw.primary.script({ status: 429, headers: { 'retry-after': '90' } });
    const err = await anthropic.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const body = (err as InstanceType<typeof Anthropic.RateLimitError>).error as {
      type: string;
      error: { type: string };
    };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('rate_limit_error');
  });

  it('estimates count_tokens and says it is an estimate', async () => {
    const res = await anthropic.messages
      .countTokens({
        model: 'claude-sonnet-4-5',
        tools: anthropicTools,
        messages: [{ role: 'user', content: 'How warm is it in Paris today?' }],
      })
      .withResponse();
    expect(res.data.input_tokens).toBeGreaterThan(10);
    expect(res.response.headers.get('x-breakwater-token-count')).toBe('estimate');
    expect(gw.primary.requests).toHaveLength(0);
  });
});

describe('OpenAI Responses API streaming with a tool call', () => {
  for (const [label, model, upstreamPath] of [
    ['a Chat-only provider', 'oc/chat-model', '/v1/chat/completions'],
    ['an Anthropic provider', 'gpt-5', '/v1/messages'],
  ] as const) {
    it(`against ${label}`, async () => {
      gw.primary.script({ toolCalls: [{ name: 'get_weather', arguments: weatherArgs }] });
      const stream = await openai.responses.create({
        model,
        instructions: 'Use tools.',
        input: 'Weather in Paris?',
        tools: responsesTools,
        stream: true,
      });
      const types: string[] = [];
      let args = '';
      let final: OpenAI.Responses.Response | null = null;
      for await (const e of stream) {
        types.push(e.type);
        if (e.type === 'response.function_call_arguments.delta') args += e.delta;
        if (e.type === 'response.completed') final = e.response;
      }
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(
        types.filter((t) => t === 'response.function_call_arguments.delta').length,
      ).toBeGreaterThan(1);
      expect(JSON.parse(args)).toEqual(weatherArgs);
      const call = final!.output.find((o) => o.type === 'function_call');
      expect(call).toMatchObject({ name: 'get_weather', arguments: JSON.stringify(weatherArgs) });
      const seen = gw.primary.requests.at(-1)!;
      expect(seen.path).toBe(upstreamPath);
      expect(JSON.stringify(seen.body)).toContain('Use tools.');
    });
  }

  it("carries Codex's freeform apply_patch tool to a Chat-only provider and back", async () => {
    const patch = '*** Begin Patch\n*** Update File: a.ts\n-a\n+b\n*** End Patch\n';
    gw.primary.script({
      toolCalls: [{ id: 'call_p', name: 'apply_patch', arguments: { input: patch } }],
    });
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'custom', name: 'apply_patch', description: 'Edit files with a patch.' },
    ];
    const final = await openai.responses
      .stream({ model: 'oc/chat-model', input: 'Rename a to b', tools })
      .finalResponse();
    expect(final.output).toMatchObject([
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch },
    ]);
    expect(gw.primary.requests.at(-1)!.body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: 'apply_patch', parameters: { required: ['input'] } },
    });
    // The next turn sends the call and its output back; the provider sees a tool result.
    gw.primary.script({ text: 'Done.' });
    const next = await openai.responses.create({
      model: 'oc/chat-model',
      tools,
      input: [
        { role: 'user', content: 'Rename a to b' },
        { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch },
        { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Success.' },
      ],
    });
    expect(next.output_text).toBe('Done.');
    expect(toolResultIds(gw.primary.requests.at(-1)!)).toEqual(['call_p']);
  });

  it('refuses previous_response_id when the provider cannot hold that state', async () => {
    const err = await openai.responses
      .create({ model: 'oc/chat-model', input: 'more', previous_response_id: 'resp_123' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
      'translation_unsupported',
    );
  });

  it('turns an Anthropic error into an OpenAI error', async () => {
    gw.primary.script({ status: 400 });
    const err = await openai.responses
      .create({ model: 'gpt-5', input: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).toBe('invalid_request_error');
    expect(e.message).toContain('Fake upstream scripted error');
  });
});

describe('a three-turn tool-use loop, end to end', () => {
  async function anthropicLoop(model: string): Promise<string> {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather?' }];
    for (let turn = 0; turn < 3; turn++) {
      const msg = await anthropic.messages
        .stream({ model, max_tokens: 512, tools: anthropicTools, messages })
        .finalMessage();
      messages.push({ role: 'assistant', content: msg.content });
      const calls = msg.content.filter((b) => b.type === 'tool_use');
      if (calls.length === 0)
        return msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      messages.push({
        role: 'user',
        content: calls.map((c) => ({
          type: 'tool_result',
          tool_use_id: c.id,
          content: `result of ${c.name}`,
        })),
      });
    }
    throw new Error('loop did not end');
  }

  async function chatLoop(model: string): Promise<string> {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather?' },
    ];
    for (let turn = 0; turn < 3; turn++) {
      const done = await openai.chat.completions
        .stream({ model, tools: chatTools, messages })
        .finalChatCompletion();
      const msg = done.choices[0]!.message;
      messages.push({ role: 'assistant', content: msg.content, tool_calls: msg.tool_calls });
      if (!msg.tool_calls?.length) return msg.content ?? '';
      expect(done.choices[0]!.finish_reason).toBe('tool_calls');
      for (const c of msg.tool_calls) {
        if (c.type !== 'function') continue;
        JSON.parse(c.function.arguments);
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          content: `result of ${c.function.name}`,
        });
      }
    }
    throw new Error('loop did not end');
  }

  async function responsesLoop(model: string): Promise<string> {
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather?' }];
    for (let turn = 0; turn < 3; turn++) {
      const res = await openai.responses
        .stream({ model, tools: responsesTools, input })
        .finalResponse();
      const calls = res.output.filter((o) => o.type === 'function_call');
      for (const o of res.output)
        if (o.type === 'function_call' || o.type === 'message') input.push(o);
      if (calls.length === 0) return res.output_text;
      for (const c of calls) {
        input.push({
          type: 'function_call_output',
          call_id: c.call_id,
          output: `result of ${c.name}`,
        });
      }
    }
    throw new Error('loop did not end');
  }

  const combos: [string, (model: string) => Promise<string>, string, string][] = [
    [
      'Anthropic client → Chat-only provider',
      anthropicLoop,
      'oc/chat-model',
      '/v1/chat/completions',
    ],
    ['Anthropic client → OpenAI provider', anthropicLoop, 'oa/gpt-test', '/v1/chat/completions'],
    ['Chat client → Anthropic provider', chatLoop, 'an/claude-test', '/v1/messages'],
    [
      'Responses client → Chat-only provider',
      responsesLoop,
      'oc/chat-model',
      '/v1/chat/completions',
    ],
    ['Responses client → Anthropic provider', responsesLoop, 'gpt-5', '/v1/messages'],
  ];
  for (const [label, loop, model, path] of combos) {
    it(label, async () => {
      scriptLoop(gw.primary);
      const answer = await loop(model);
      expect(answer).toBe('It is 21 degrees in Paris.');
      const reqs = gw.primary.requests;
      expect(reqs.map((r) => r.path.split('?')[0])).toEqual([path, path, path]);
      expect(toolResultIds(reqs[1]!)).toEqual(['call_one']);
      expect(toolResultIds(reqs[2]!)).toEqual(['call_one', 'call_two', 'call_three']);
    });
  }
});

describe('same format stays pass-through', () => {
  it('sends a Chat client the bytes of a Chat-only provider untouched', async () => {
    const raw =
      '{"model":"chat-model",  "messages":[{"role":"user","content":"hi"}], "x_vendor":1}';
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-translated')).toBeNull();
    expect(gw.primary.requests.at(-1)!.rawBody).toBe(raw);
  });
});
