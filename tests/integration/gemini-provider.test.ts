import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, UsageReport, UsageRow } from '../../src/shared/contract';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { eventually, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';
import { sseEvents } from '../support/translate-fixtures';

// A `format: "gemini"` provider (the fake upstream's Gemini mode) serves clients of every API
// through the gateway, text and tool calls, streamed and not; a faulting Gemini upstream fails
// over; and the Gemini usage it reports is what the usage accounting counts.
const GEMINI_KEY = 'AIza-test-provider-0123456789abcdef';
const TEXT = 'Gemini says hello through Breakwater.';
const CALL = { id: 'call_gm_1', name: 'get_weather', arguments: { city: 'Paris' } };

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'gm',
        format: 'gemini',
        baseUrl: `${primary.url}/v1beta`,
        authClass: 'api_key',
        connections: [{ id: 'gm-1', apiKey: GEMINI_KEY }],
        models: [{ id: 'gemini-test', price: { input: 1, output: 4 } }],
      },
      {
        id: 'oc',
        format: 'openai-chat',
        baseUrl: `${backup.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oc-1', apiKey: OPENAI_KEY }],
        models: ['chat-model'],
      },
    ],
    combos: [
      { name: 'gem', strategy: 'priority', targets: ['gm/gemini-test'] },
      { name: 'gem-then-chat', strategy: 'priority', targets: ['gm/gemini-test', 'oc/chat-model'] },
    ],
  } as BreakwaterConfig;
}

beforeAll(async () => {
  gw = await startGateway({ config });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/** What a client saw: its text and the tool calls it was asked to make. */
interface Seen {
  text: string;
  calls: { name: string; args: unknown }[];
}

interface GeminiChunk {
  candidates?: {
    content?: {
      parts?: {
        text?: string;
        thought?: boolean;
        functionCall?: { name: string; args: unknown };
      }[];
    };
  }[];
}

/** A Gemini API client, by hand (no Gemini SDK is installed): the method's body and chunks read. */
async function geminiClient(model: string, stream: boolean, tools: boolean): Promise<Seen> {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const res = await fetch(`${gw.url}/v1beta/models/${model}:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
      ...(tools
        ? {
            tools: [
              {
                functionDeclarations: [
                  { name: 'get_weather', parametersJsonSchema: weatherSchema },
                ],
              },
            ],
          }
        : {}),
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const chunks = stream
    ? sseEvents(await res.text()).map((e) => e.data as GeminiChunk)
    : [(await res.json()) as GeminiChunk];
  const seen: Seen = { text: '', calls: [] };
  for (const c of chunks) {
    for (const p of c.candidates?.[0]?.content?.parts ?? []) {
      if (typeof p.text === 'string' && !p.thought) seen.text += p.text;
      if (p.functionCall) seen.calls.push({ name: p.functionCall.name, args: p.functionCall.args });
    }
  }
  return seen;
}

const chatTools = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: weatherSchema } },
];

async function chatClient(model: string, stream: boolean, tools: boolean): Promise<Seen> {
  const base = {
    model,
    messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    ...(tools ? { tools: chatTools } : {}),
  };
  const r = stream
    ? await openai.chat.completions.stream({ ...base, stream: true }).finalChatCompletion()
    : await openai.chat.completions.create(base);
  const m = r.choices[0]!.message;
  return {
    text: m.content ?? '',
    calls: (m.tool_calls ?? []).map((c) => ({
      name: c.type === 'function' ? c.function.name : '',
      args: c.type === 'function' ? JSON.parse(c.function.arguments) : null,
    })),
  };
}

async function responsesClient(model: string, stream: boolean, tools: boolean): Promise<Seen> {
  const base = {
    model,
    input: 'Weather in Paris?',
    ...(tools
      ? {
          tools: [
            {
              type: 'function' as const,
              name: 'get_weather',
              parameters: weatherSchema,
              strict: false,
            },
          ],
        }
      : {}),
  };
  const r = stream
    ? await openai.responses.stream(base).finalResponse()
    : await openai.responses.create(base);
  return {
    text: r.output_text,
    calls: r.output.flatMap((o) =>
      o.type === 'function_call' ? [{ name: o.name, args: JSON.parse(o.arguments) }] : [],
    ),
  };
}

async function anthropicClient(model: string, stream: boolean, tools: boolean): Promise<Seen> {
  const base = {
    model,
    max_tokens: 256,
    messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    ...(tools
      ? {
          tools: [
            { name: 'get_weather', input_schema: { ...weatherSchema, type: 'object' as const } },
          ],
        }
      : {}),
  };
  const m = stream
    ? await anthropic.messages.stream(base).finalMessage()
    : await anthropic.messages.create(base);
  return {
    text: m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
    calls: m.content.flatMap((b) =>
      b.type === 'tool_use' ? [{ name: b.name, args: b.input }] : [],
    ),
  };
}

const CLIENTS = {
  'Chat Completions': chatClient,
  Responses: responsesClient,
  'Anthropic Messages': anthropicClient,
  Gemini: geminiClient,
} as const;

describe.each(Object.entries(CLIENTS))('a %s client on a Gemini provider', (_name, client) => {
  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'whole';
    it(`text, ${how}`, async () => {
      gw.primary.script({ text: TEXT });
      const seen = await client('gem', stream, false);
      expect(seen).toEqual({ text: TEXT, calls: [] });
      const req = gw.primary.requests.at(-1)!;
      expect(req.path).toBe(
        `/v1beta/models/gemini-test:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      );
      expect(req.headers['x-goog-api-key']).toBe(GEMINI_KEY);
      expect(req.body.contents[0].parts[0].text).toBe('Weather in Paris?');
    });

    it(`a tool call, ${how}`, async () => {
      gw.primary.script({ toolCalls: [CALL] });
      const seen = await client('gem', stream, true);
      expect(seen.calls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
      const sent = gw.primary.requests.at(-1)!.body;
      expect(sent.tools[0].functionDeclarations[0].name).toBe('get_weather');
    });
  }
});

async function usageRow(model: string): Promise<UsageRow | undefined> {
  const res = await gw.admin('/api/usage?since=1h&by=model');
  return ((await res.json()) as UsageReport).rows.find((r) => r.group === model);
}

describe('Gemini usage is counted as the upstream reported it', () => {
  const reported = { input: 120, output: 30, cached: 64, reasoning: 20 };
  const cases = [
    ['a Gemini client (relayed as it is)', geminiClient],
    ['a Chat client (translated)', chatClient],
  ] as const;
  for (const [name, client] of cases) {
    for (const stream of [false, true]) {
      it(`${name}, ${stream ? 'streamed' : 'whole'}`, async () => {
        const before = await usageRow('gemini-test');
        gw.primary.script({ text: TEXT, usage: reported });
        await client('gem', stream, false);
        await eventually(
          async () => (await usageRow('gemini-test'))?.requests === (before?.requests ?? 0) + 1,
        );
        const after = (await usageRow('gemini-test'))!;
        const delta = (k: keyof UsageRow) => (after[k] as number) - ((before?.[k] as number) ?? 0);
        expect(delta('inputTokens')).toBe(120);
        expect(delta('outputTokens')).toBe(30);
        expect(delta('cacheReadTokens')).toBe(64);
        expect(delta('reasoningTokens')).toBe(20);
        // 56 uncached and 64 cached prompt tokens at $1, 30 output at $4, per million.
        expect(delta('costUsd')).toBeCloseTo((120 * 1 + 30 * 4) / 1e6, 12);
      });
    }
  }
});

describe('a faulting Gemini upstream fails over to the next target', () => {
  const faults: [string, FakeStep, boolean][] = [
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '7' } }, false],
    ['503 in Google’s error shape', { status: 503 }, false],
    ['connection reset before the headers', { resetBeforeHeaders: true }, false],
    ['a stream broken before its first chunk', { resetAfterChunks: 0 }, true],
    ['an error chunk opening the stream', { streamError: true }, true],
  ];
  for (const [name, fault, stream] of faults) {
    for (const [clientName, client] of [
      ['Gemini', geminiClient],
      ['Chat', chatClient],
    ] as const) {
      it(`${name} (${clientName} client)`, async () => {
        gw.primary.script(fault);
        gw.backup.setDefault({ text: 'Served by the Chat target.' });
        const seen = await client('gem-then-chat', stream, false);
        expect(seen.text).toBe('Served by the Chat target.');
        expect(gw.primary.requestCount).toBe(1);
        expect(gw.backup.requestCount).toBe(1);
      });
    }
  }

  it('a Gemini client gets a refused request back in Google’s error shape', async () => {
    gw.primary.script({ status: 400 });
    const res = await fetch(`${gw.url}/v1beta/models/gem:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; status: string } };
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(gw.primary.requestCount).toBe(1);
  });

  it('a slow Gemini upstream is waited for (delayMs)', async () => {
    gw.primary.script({ text: TEXT, delayMs: 300 });
    const t0 = Date.now();
    expect((await geminiClient('gem', true, false)).text).toBe(TEXT);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });
});
