// Every Responses answer Breakwater builds by translation, whole or streamed, checked against
// the Open Responses schema (tests/support/open-responses-schema.ts), on each upstream API the
// translation reads, with and without tools; and the envelope repeats what the request asked.
import { describe, expect, it } from 'vitest';
import {
  createStreamTranslator,
  createStreamWriter,
  emitResponse,
  parseResponse,
  requestEcho,
  responseAsStream,
  type WireFormat,
} from '../../src/main/engine/translate';
import type { IrResponse, Json } from '../../src/main/engine/translate/ir';
import { responseEvents } from '../../src/main/engine/translate/stream';
import { validateResponse, validateStreamEvent } from '../support/open-responses-schema';
import {
  NOW_MS,
  requestCases,
  responseFixture,
  sseEvents,
  streamFixture,
} from '../support/translate-fixtures';

const CLIENT = 'openai-responses' as const;
/** The answer ends a few seconds after it began: `completed_at` must show the later time. */
const DONE_MS = NOW_MS + 4_200;
// Upstream APIs a Responses client can be translated to: a new adapter joins here (and gets a
// recorded fixture in tests/fixtures/translate/), and every case below runs on it too.
const UPSTREAMS: WireFormat[] = ['openai-chat', 'anthropic', 'gemini'];

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const REQUESTS: Record<string, Json> = {
  'no tools': { model: 'gpt-5', input: 'Say hello.' },
  tools: { model: 'gpt-5', input: 'Weather in Paris and Oslo?', tools: [weatherTool] },
  'every echoed field': {
    model: 'gpt-5',
    instructions: 'Be brief.',
    input: 'Weather?',
    tools: [{ ...weatherTool, strict: true }, { type: 'web_search' }],
    tool_choice: { type: 'function', name: 'get_weather' },
    parallel_tool_calls: false,
    temperature: 0.2,
    top_p: 0.9,
    max_output_tokens: 900,
    text: {
      format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true },
      verbosity: 'low',
    },
    reasoning: { effort: 'high', summary: 'auto' },
    truncation: 'auto',
    store: false,
    service_tier: 'flex',
    prompt_cache_key: 'session-7',
    safety_identifier: 'user-hash-1',
    user: 'u-1',
    metadata: { ticket: 'BW-20' },
  },
  'Codex freeform tool': requestCases(CLIENT).codex_freeform_tool!,
};

const usage = (reasoning: number | null) => ({
  input: 120,
  output: 40,
  cached: 100,
  cacheCreation: null,
  reasoning,
});

const ANSWERS: Record<string, IrResponse> = {
  text: {
    id: 'resp_text',
    model: 'm-1',
    parts: [{ type: 'text', text: 'Hello there.' }],
    stop: 'end',
    stopSequence: null,
    usage: usage(null),
  },
  'reasoning, text and two tool calls': {
    id: 'resp_tools',
    model: 'm-1',
    parts: [
      { type: 'reasoning', text: 'Two cities.', signature: 'sig-1' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
    stop: 'tool_use',
    stopSequence: null,
    usage: usage(12),
  },
  'cut short by max tokens': {
    id: 'resp_cut',
    model: 'm-1',
    parts: [{ type: 'text', text: 'The long answer beg' }],
    stop: 'max_tokens',
    stopSequence: null,
    usage: usage(null),
  },
  'freeform tool call': {
    id: 'resp_patch',
    model: 'm-1',
    parts: [
      {
        type: 'tool_call',
        id: 'call_9',
        name: 'apply_patch',
        arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch' }),
      },
    ],
    stop: 'tool_use',
    stopSequence: null,
    usage: usage(null),
  },
};

const customToolsOf = (req: Json): Set<string> =>
  new Set(
    (Array.isArray(req.tools) ? (req.tools as Json[]) : [])
      .filter((t) => t.type === 'custom')
      .map((t) => t.name as string),
  );

function options(req: Json) {
  return {
    nowMs: NOW_MS,
    now: () => DONE_MS,
    includeUsage: false,
    customTools: customToolsOf(req),
    echo: requestEcho(CLIENT, req)!,
  };
}

/** What the upstream would have sent for `ir`: its whole body and its stream. */
function upstreamAnswer(upstream: WireFormat, ir: IrResponse): { body: Json; sse: string } {
  const body = JSON.parse(JSON.stringify(emitResponse(upstream, ir, { nowMs: NOW_MS }))) as Json;
  const writer = createStreamWriter(upstream, { nowMs: NOW_MS, includeUsage: true });
  let sse = '';
  for (const e of responseEvents(ir)) sse += writer.write(e);
  return { body, sse: sse + writer.finish() };
}

function translateSse(upstream: WireFormat, sse: string, req: Json, chunk = 7): string {
  const t = createStreamTranslator(upstream, CLIENT, options(req));
  const bytes = Buffer.from(sse);
  let out = '';
  for (let i = 0; i < bytes.length; i += chunk) out += t.push(bytes.subarray(i, i + chunk));
  return out + t.end();
}

/** Checks every event and returns the final response object. */
function expectConformingStream(sse: string, req: Json): Json {
  const events = sseEvents(sse);
  expect(events.length).toBeGreaterThan(3);
  events.forEach((e, i) => {
    expect(validateStreamEvent(e.data), `event ${i} (${e.event})`).toEqual([]);
    const data = e.data as Json;
    expect(e.event).toBe(data.type);
    expect(data.sequence_number).toBe(i);
    // The schema lets logprobs be left out; the strict clients want them present.
    if (e.event === 'response.output_text.delta' || e.event === 'response.output_text.done') {
      expect(data.logprobs).toEqual([]);
    }
  });
  const [created, inProgress] = events.map((e) => e.data as Json);
  for (const opening of [created!, inProgress!]) {
    const r = opening.response as Json;
    expect(r).toMatchObject({ status: 'in_progress', completed_at: null, usage: null });
    expectEcho(r, req);
  }
  const last = events.at(-1)!.data as Json;
  expect(['response.completed', 'response.incomplete']).toContain(last.type);
  return last.response as Json;
}

/** The envelope repeats the request: compared with the echo the request alone gives. */
function expectEcho(r: Json, req: Json): void {
  const echo = requestEcho(CLIENT, req)!;
  for (const [k, v] of Object.entries(echo)) expect(r[k], k).toEqual(v);
}

function expectFinal(r: Json, ir: IrResponse, req: Json): void {
  expect(validateResponse(r)).toEqual([]);
  for (const item of r.output as Json[]) {
    if (item.type !== 'message') continue;
    for (const part of item.content as Json[]) expect(part.logprobs).toEqual([]);
  }
  expectEcho(r, req);
  expect(r.created_at).toBe(Math.floor(NOW_MS / 1000));
  if (ir.stop === 'max_tokens') {
    expect(r).toMatchObject({
      status: 'incomplete',
      completed_at: null,
      incomplete_details: { reason: 'max_output_tokens' },
    });
  } else {
    expect(r).toMatchObject({ status: 'completed', completed_at: Math.floor(DONE_MS / 1000) });
  }
  expect(r.usage).toMatchObject({
    input_tokens: 120,
    output_tokens: 40,
    total_tokens: 160,
    input_tokens_details: { cached_tokens: 100 },
  });
}

describe.each(UPSTREAMS)('Responses answers from a %s upstream conform', (upstream) => {
  for (const [answerName, ir] of Object.entries(ANSWERS)) {
    for (const [reqName, req] of Object.entries(REQUESTS)) {
      const freeform = answerName === 'freeform tool call';
      if (freeform !== (reqName === 'Codex freeform tool')) continue;
      const { body, sse } = upstreamAnswer(upstream, ir);

      it(`${answerName}, request with ${reqName}: whole body`, () => {
        const r = emitResponse(CLIENT, parseResponse(upstream, body), options(req));
        expectFinal(r, ir, req);
      });

      it(`${answerName}, request with ${reqName}: stream`, () => {
        expectFinal(expectConformingStream(translateSse(upstream, sse, req), req), ir, req);
      });

      it(`${answerName}, request with ${reqName}: whole body replayed as a stream`, () => {
        const replay = responseAsStream(upstream, CLIENT, body, options(req));
        expectFinal(expectConformingStream(replay.text, req), ir, req);
      });
    }
  }
});

/** The cached input tokens each recorded stream reports. */
const CACHED_IN_STREAM_FIXTURE: Partial<Record<WireFormat, number>> = {
  'openai-chat': 2000,
  anthropic: 2000,
  gemini: 32,
};

describe('recorded upstream answers conform once translated', () => {
  const req = REQUESTS.tools!;
  for (const upstream of UPSTREAMS) {
    it(`${upstream}: whole body and stream`, () => {
      const whole = emitResponse(CLIENT, parseResponse(upstream, responseFixture(upstream)), {
        ...options(req),
      });
      expect(validateResponse(whole)).toEqual([]);
      const final = expectConformingStream(
        translateSse(upstream, streamFixture(upstream), req),
        req,
      );
      expect(validateResponse(final)).toEqual([]);
      // What the provider reported, in the specification's usage details.
      expect(final.usage).toMatchObject({
        input_tokens_details: { cached_tokens: CACHED_IN_STREAM_FIXTURE[upstream] },
      });
    });
  }

  it('reasoning tokens the provider reported are in output_tokens_details, else 0', () => {
    const chat = emitResponse(
      CLIENT,
      parseResponse('openai-chat', responseFixture('openai-chat')),
      options(req),
    );
    expect(chat.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 40 } });
    const an = emitResponse(
      CLIENT,
      parseResponse('anthropic', responseFixture('anthropic')),
      options(req),
    );
    expect(an.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 0 } });
  });
});

describe('an upstream error inside the stream', () => {
  it('is an error event in the specification’s shape, with OpenAI’s top-level fields too', () => {
    const sse =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const events = sseEvents(translateSse('anthropic', sse, REQUESTS['no tools']!));
    for (const e of events) expect(validateStreamEvent(e.data)).toEqual([]);
    expect(events.at(-1)!.data).toMatchObject({
      type: 'error',
      code: 'overloaded_error',
      message: 'Overloaded',
      error: { type: 'api_error', code: 'overloaded_error', message: 'Overloaded', param: null },
    });
  });
});

describe('the echo of a request', () => {
  it('repeats every asked field, leaves hosted tools out (the model never had them)', () => {
    expect(requestEcho(CLIENT, REQUESTS['every echoed field']!)).toEqual({
      previous_response_id: null,
      instructions: 'Be brief.',
      tools: [{ ...weatherTool, strict: true }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      max_tool_calls: null,
      max_output_tokens: 900,
      text: {
        format: {
          type: 'json_schema',
          name: 'w',
          description: null,
          schema: { type: 'object' },
          strict: true,
        },
        verbosity: 'low',
      },
      reasoning: { effort: 'high', summary: 'auto' },
      truncation: 'auto',
      store: false,
      background: false,
      service_tier: 'flex',
      prompt_cache_key: 'session-7',
      safety_identifier: 'user-hash-1',
      user: 'u-1',
      metadata: { ticket: 'BW-20' },
    });
  });

  it('fills the specification’s defaults for what the request left out', () => {
    expect(requestEcho(CLIENT, { model: 'gpt-5', input: 'hi' })).toEqual({
      previous_response_id: null,
      instructions: null,
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: 1,
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      max_tool_calls: null,
      max_output_tokens: null,
      text: { format: { type: 'text' } },
      reasoning: null,
      truncation: 'disabled',
      store: false,
      background: false,
      service_tier: 'default',
      prompt_cache_key: null,
      safety_identifier: null,
      user: null,
      metadata: {},
    });
  });

  it('values the translation could not carry read as the defaults that were in effect', () => {
    const echo = requestEcho(CLIENT, {
      model: 'gpt-5',
      input: 'hi',
      tool_choice: { type: 'allowed_tools', tools: [], mode: 'auto' },
      temperature: 'warm',
      max_output_tokens: 10.5,
      truncation: 'sometimes',
      reasoning: { effort: 'extreme' },
      metadata: { a: 'x', b: 2 },
      presence_penalty: 1.5,
    })!;
    expect(echo).toMatchObject({
      tool_choice: 'auto',
      temperature: 1,
      max_output_tokens: null,
      truncation: 'disabled',
      reasoning: { effort: null, summary: null },
      metadata: { a: 'x' },
      presence_penalty: 0,
    });
  });

  it('is only built for Responses clients', () => {
    expect(requestEcho('openai-chat', { model: 'x', tools: [weatherTool] })).toBeUndefined();
    expect(requestEcho('anthropic', { model: 'x' })).toBeUndefined();
  });
});

describe('the schema itself', () => {
  it('rejects a response without the specification’s required fields (the envelope before #20)', () => {
    const old = {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'm',
      output: [],
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      usage: null,
    };
    const errors = validateResponse(old);
    expect(errors).toContain('response.completed_at: required');
    expect(errors).toContain('response.truncation: required');
    expect(errors).toContain('response.text: required');
    expect(errors).toHaveLength(20);
  });

  it('rejects wrong types, unknown event types and the flat error event', () => {
    expect(validateStreamEvent({ type: 'response.output_text.delta', sequence_number: 1 })).toEqual(
      [
        'event.item_id: required',
        'event.output_index: required',
        'event.content_index: required',
        'event.delta: required',
      ],
    );
    expect(validateStreamEvent({ type: 'response.made_up', sequence_number: 0 })).toHaveLength(1);
    expect(
      validateStreamEvent({
        type: 'error',
        sequence_number: 0,
        code: 'x',
        message: 'y',
        param: null,
      }),
    ).toEqual(['event.error: required']);
  });
});
