import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { FAKE_RESULTS, type FakeSearch, startFakeSearch } from '../support/fake-search';
import type { FakeUpstream } from '../support/fake-upstream';
import {
  ANTHROPIC_KEY,
  eventually,
  fakeProvider,
  OPENAI_KEY,
  startGateway,
  type TestGateway,
} from '../support/gateway';

const SEARCH_KEY = 'bsk-test-search-key-0123456789';

// `oc` speaks Chat Completions only; `an` speaks Anthropic Messages (it runs the tool itself).
function config(primary: FakeUpstream, search: FakeSearch): BreakwaterConfig {
  return {
    providers: [
      fakeProvider('oc', 'openai-chat', primary, ['chat-model'], OPENAI_KEY),
      fakeProvider('oa', 'openai', primary, ['gpt-test'], OPENAI_KEY),
      fakeProvider('an', 'anthropic', primary, ['claude-test'], ANTHROPIC_KEY),
    ],
    combos: [
      { name: 'claude-sonnet-4-5', strategy: 'priority', targets: ['oc/chat-model'] },
      { name: 'gemini-2.5-flash', strategy: 'priority', targets: ['oc/chat-model'] },
    ],
    webSearch: { backend: 'searxng', url: search.url },
  };
}

let gw: TestGateway;
let search: FakeSearch;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  search = await startFakeSearch();
  gw = await startGateway({
    config: (primary) => config(primary, search),
    env: { BREAKWATER_WEB_SEARCH_TIMEOUT_MS: '1500', BREAKWATER_WEB_SEARCH_KEEPALIVE_MS: '100' },
  });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'any', maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'any', maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await search.close();
});
beforeEach(async () => {
  gw.primary.reset();
  search.reset();
  gw.resetResilience();
  const r = await gw.admin('/api/web-search', {
    method: 'PUT',
    body: JSON.stringify({ backend: 'searxng', url: search.url }),
  });
  expect(r.status).toBe(200);
});

const SERVER_TOOL = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 } as const;
const ASK = [{ role: 'user' as const, content: 'What is Breakwater?' }];

/** The model asks for one search, then answers. */
function scriptOneSearch(query = 'breakwater gateway'): void {
  gw.primary.script(
    { toolCalls: [{ id: 'call_s1', name: 'web_search', arguments: { query } }] },
    { text: 'Breakwater is an LLM gateway (breakwater.example).' },
  );
}

function secondCallCarriedResults(): void {
  const calls = gw.primary.requests.filter((r) => r.path.includes('/chat/completions'));
  expect(calls).toHaveLength(2);
  expect(calls[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
    'web_search',
  ]);
  const tool = calls[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
  expect(tool.tool_call_id).toBe('call_s1');
  expect(tool.content).toContain(FAKE_RESULTS[0]!.url);
  expect(tool.content).toContain(FAKE_RESULTS[1]!.snippet);
}

describe('Anthropic server tool on a Chat provider: the gateway searches', () => {
  it('answers with server_tool_use, web_search_tool_result and the text', async () => {
    scriptOneSearch();
    const msg = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    expect(msg.content.map((b) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
    const use = msg.content[0] as Anthropic.ServerToolUseBlock;
    expect(use.name).toBe('web_search');
    expect(use.input).toEqual({ query: 'breakwater gateway' });
    const result = msg.content[1] as Anthropic.WebSearchToolResultBlock;
    expect(result.tool_use_id).toBe(use.id);
    const entries = result.content as Anthropic.WebSearchResultBlock[];
    expect(entries.map((e) => e.url)).toEqual(FAKE_RESULTS.map((r) => r.url));
    expect(entries[0]).toMatchObject({
      type: 'web_search_result',
      title: 'Breakwater docs',
      page_age: '2 days ago',
    });
    expect((msg.content[2] as Anthropic.TextBlock).text).toContain('LLM gateway');
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.server_tool_use?.web_search_requests).toBe(1);
    // A Chat-only provider gets the Chat field it knows.
    const first = gw.primary.requests.find((r) => r.path.includes('/chat/completions'))!.body;
    expect(first.max_tokens).toBe(300);
    expect(first.max_completion_tokens).toBeUndefined();
    expect(search.requests).toHaveLength(1);
    expect(search.requests[0]).toMatchObject({
      path: '/search',
      query: { q: 'breakwater gateway', format: 'json' },
    });
    secondCallCarriedResults();
  });

  it("the model's words before its search come before the search blocks", async () => {
    gw.primary.script(
      {
        text: 'Let me search.',
        toolCalls: [{ id: 'call_s1', name: 'web_search', arguments: { query: 'q' } }],
      },
      { text: 'Breakwater is an LLM gateway.' },
      {
        text: 'Let me search.',
        toolCalls: [{ id: 'call_s1', name: 'web_search', arguments: { query: 'q' } }],
      },
      { text: 'Breakwater is an LLM gateway.' },
    );
    const req = {
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    };
    const whole = await anthropic.messages.create(req);
    const streamed = await anthropic.messages.stream(req).finalMessage();
    for (const msg of [whole, streamed]) {
      expect(msg.content.map((b) => b.type)).toEqual([
        'text',
        'server_tool_use',
        'web_search_tool_result',
        'text',
      ]);
      expect((msg.content[0] as Anthropic.TextBlock).text).toBe('Let me search.');
    }
  });

  it("the request's log row says what was searched; each model call has its own row", async () => {
    gw.engine.flushLog();
    const before = (await (await gw.admin('/api/logs?limit=1')).json()) as { id: number }[];
    scriptOneSearch();
    await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    type Row = { id: number; decision: string | null; status: number; inputTokens: number | null };
    let rows: Row[] = [];
    await eventually(async () => {
      gw.engine.flushLog();
      const all = (await (await gw.admin('/api/logs?limit=10')).json()) as Row[];
      rows = all.filter((r) => r.id > (before[0]?.id ?? 0));
      return rows.length === 3;
    });
    const client = rows.find((r) => r.decision?.includes('web search by the gateway'));
    expect(client?.decision).toContain('web search by the gateway (searxng): 1 of 1 searches ran');
    expect(client?.status).toBe(200);
    expect(client?.inputTokens).toBe(0);
    const turns = rows.filter((r) => /web search turn \d/.test(r.decision ?? ''));
    expect(turns).toHaveLength(2);
    for (const t of turns) expect(t.inputTokens).toBeGreaterThan(0);
  });

  it('a later turn sends the earlier search blocks back: the Chat provider reads them as text', async () => {
    scriptOneSearch();
    const first = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    gw.primary.reset();
    await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: [
        ...ASK,
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'Thanks. Who makes it?' },
      ],
    });
    const sent = gw.primary.requests[0]!.body;
    const assistant = sent.messages.find((m: { role: string }) => m.role === 'assistant');
    const text = JSON.stringify(assistant.content);
    expect(text).toContain('[searched the web for: breakwater gateway]');
    expect(text).toContain(FAKE_RESULTS[0]!.url);
    expect(text).toContain(FAKE_RESULTS[0]!.snippet);
    expect(text).toContain('LLM gateway');
    expect(search.requests).toHaveLength(1);
  });

  it('streams the same blocks in order, assembled by the SDK', async () => {
    scriptOneSearch();
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    const msg = await stream.finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
    expect((msg.content[0] as Anthropic.ServerToolUseBlock).input).toEqual({
      query: 'breakwater gateway',
    });
    const entries = (msg.content[1] as Anthropic.WebSearchToolResultBlock)
      .content as Anthropic.WebSearchResultBlock[];
    expect(entries.map((e) => e.url)).toEqual(FAKE_RESULTS.map((r) => r.url));
    expect((msg.content[2] as Anthropic.TextBlock).text).toContain('LLM gateway');
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.server_tool_use?.web_search_requests).toBe(1);
    secondCallCarriedResults();
  });

  it('a model call failing after a search ends the stream with an error event, the search before it', async () => {
    gw.primary.script(
      { toolCalls: [{ id: 'call_s1', name: 'web_search', arguments: { query: 'q' } }] },
      { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    );
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        stream: true,
        messages: ASK,
        tools: [SERVER_TOOL],
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    // Pings may come in between on a slow machine (keep-alives every 100 ms here).
    const events = [...text.matchAll(/^event: (.+)$/gm)]
      .map((m) => m[1])
      .filter((e) => e !== 'ping');
    expect(events.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(text).toContain('"type":"web_search_tool_result"');
    expect(events.at(-1)).toBe('error');
    expect(events).not.toContain('message_stop');
  });

  it('a streaming client waiting on a slow model call gets the head and pings meanwhile', async () => {
    gw.primary.script(
      {
        delayMs: 450,
        toolCalls: [{ id: 'call_s1', name: 'web_search', arguments: { query: 'q' } }],
      },
      { text: 'Breakwater is an LLM gateway.' },
    );
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        stream: true,
        messages: ASK,
        tools: [SERVER_TOOL],
      }),
    });
    const text = await res.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events.slice(1, 3)).toEqual(['ping', 'ping']);
    expect(events.at(-1)).toBe('message_stop');
    expect(text).toContain('"type":"web_search_tool_result"');
  });

  it('a model call failing before any search answers with the error, in the format', async () => {
    gw.primary.script({
      status: 400,
      body: { error: { message: 'bad request', type: 'invalid_request_error' } },
    });
    await expect(
      anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        messages: ASK,
        tools: [SERVER_TOOL],
      }),
    ).rejects.toMatchObject({ status: 400 });
    expect(search.requests).toHaveLength(0);
  });

  it('tells the model in one sentence when the backend is down, and says so in the log', async () => {
    search.script({ status: 503, body: { error: `down ${SEARCH_KEY}` } });
    scriptOneSearch();
    const events: { type: string; cause?: string }[] = [];
    const off = gw.engine.onEvent((e) => events.push(e as never));
    const msg = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    const result = msg.content[1] as Anthropic.WebSearchToolResultBlock;
    expect(result.content).toEqual({
      type: 'web_search_tool_result_error',
      error_code: 'unavailable',
    });
    expect(msg.usage.server_tool_use?.web_search_requests).toBe(0);
    const calls = gw.primary.requests.filter((r) => r.path.includes('/chat/completions'));
    const tool = calls[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool.content).toMatch(/(^|: )web search is unavailable: searxng answered HTTP 503\.$/);
    expect(gw.log.lines.some((l) => l.includes('searxng answered HTTP 503'))).toBe(true);
    off();
    expect(events.find((e) => e.type === 'websearch.unavailable')?.cause).toBe(
      'web search is unavailable: searxng answered HTTP 503.',
    );
  });

  it('with no backend, the tool result says none is configured', async () => {
    expect((await gw.admin('/api/web-search', { method: 'DELETE' })).status).toBe(200);
    scriptOneSearch();
    await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    const calls = gw.primary.requests.filter((r) => r.path.includes('/chat/completions'));
    const tool = calls[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool.content).toMatch(
      /(^|: )web search is unavailable: no search backend is configured/,
    );
    expect(search.requests).toHaveLength(0);
  });

  it('a hung backend times out instead of holding the request', async () => {
    search.script({ hang: true });
    scriptOneSearch();
    const started = Date.now();
    const msg = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    expect(msg.content[1]).toMatchObject({ content: { error_code: 'unavailable' } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an Anthropic provider gets the tool unchanged and the backend sees no query', async () => {
    const msg = await anthropic.messages.create({
      model: 'an/claude-test',
      max_tokens: 300,
      messages: ASK,
      tools: [SERVER_TOOL],
    });
    expect(msg.content[0]!.type).toBe('text');
    const sent = gw.primary.requests.find((r) => r.path.includes('/v1/messages'));
    expect(sent!.body.tools).toEqual([SERVER_TOOL]);
    expect(search.requests).toHaveLength(0);
  });
});

describe('Responses web_search on a Chat provider: the gateway searches', () => {
  it('answers with a web_search_call item before the message', async () => {
    scriptOneSearch();
    const r = await openai.responses.create({
      model: 'oc/chat-model',
      input: 'What is Breakwater?',
      tools: [{ type: 'web_search' }],
    });
    expect(r.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(r.output[0]).toMatchObject({
      type: 'web_search_call',
      status: 'completed',
      action: { type: 'search', query: 'breakwater gateway' },
    });
    expect(r.output_text).toContain('LLM gateway');
    secondCallCarriedResults();
  });

  it('a later turn sends the web_search_call item back: the Chat provider reads it as text', async () => {
    scriptOneSearch();
    const first = await openai.responses.create({
      model: 'oc/chat-model',
      input: 'What is Breakwater?',
      tools: [{ type: 'web_search' }],
    });
    gw.primary.reset();
    await openai.responses.create({
      model: 'oc/chat-model',
      input: [
        { role: 'user', content: 'What is Breakwater?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'Who makes it?' },
      ],
    });
    const sent = JSON.stringify(gw.primary.requests[0]!.body.messages);
    expect(sent).toContain('[searched the web for: breakwater gateway]');
    expect(sent).toContain(FAKE_RESULTS[1]!.url);
  });

  it('streams the web_search_call item, then the message', async () => {
    scriptOneSearch();
    const stream = openai.responses.stream({
      model: 'oc/chat-model',
      input: 'What is Breakwater?',
      tools: [{ type: 'web_search' }],
    });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    const r = await stream.finalResponse();
    expect(types).toContain('response.web_search_call.completed');
    expect(types.indexOf('response.web_search_call.completed')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
    expect(r.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(r.output_text).toContain('LLM gateway');
  });
});

describe('Gemini googleSearch on a Chat provider: the gateway searches', () => {
  const ask = {
    contents: [{ role: 'user', parts: [{ text: 'What is Breakwater?' }] }],
    tools: [{ googleSearch: {} }],
  };
  const generate = (method: string) =>
    fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask),
    });

  it('the answer carries grounding metadata with the queries and the pages', async () => {
    scriptOneSearch();
    const res = await generate('generateContent');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.candidates[0].content.parts[0].text).toContain('LLM gateway');
    expect(body.candidates[0].groundingMetadata).toEqual({
      webSearchQueries: ['breakwater gateway'],
      groundingChunks: FAKE_RESULTS.map((r) => ({ web: { uri: r.url, title: r.title } })),
    });
    secondCallCarriedResults();
  });

  it('streamed, the last chunk carries it', async () => {
    scriptOneSearch();
    const text = await (await generate('streamGenerateContent?alt=sse')).text();
    const chunks = text
      .split('\n\n')
      .filter((c) => c.startsWith('data: '))
      .map((c) => JSON.parse(c.slice(6)));
    const last = chunks.at(-1);
    expect(last.candidates[0].finishReason).toBe('STOP');
    expect(last.candidates[0].groundingMetadata.webSearchQueries).toEqual(['breakwater gateway']);
    expect(chunks.map((c) => c.candidates[0].content.parts[0]?.text ?? '').join('')).toContain(
      'LLM gateway',
    );
  });
});

describe('native providers run the tool themselves', () => {
  it('an OpenAI (Responses) provider gets web_search unchanged', async () => {
    await openai.responses.create({
      model: 'oa/gpt-test',
      input: 'What is Breakwater?',
      tools: [{ type: 'web_search' }],
    });
    const sent = gw.primary.requests.find((r) => r.path.includes('/responses'));
    expect(sent!.body.tools).toEqual([{ type: 'web_search' }]);
    expect(search.requests).toHaveLength(0);
  });
});

describe('Brave and Tavily backends', () => {
  for (const backend of ['brave', 'tavily'] as const) {
    it(`${backend}: its wire format in, its results out; its key never shown`, async () => {
      const url = backend === 'brave' ? `${search.url}/res/v1/web/search` : `${search.url}/search`;
      const put = await gw.admin('/api/web-search', {
        method: 'PUT',
        body: JSON.stringify({ backend, url, apiKey: SEARCH_KEY, maxResults: 1 }),
      });
      expect(put.status).toBe(200);
      expect(JSON.stringify(await put.json())).not.toContain(SEARCH_KEY);
      const got = await (await gw.admin('/api/web-search')).json();
      expect(got.webSearch).toMatchObject({ backend, hasSecret: true, maxResults: 1 });
      expect(JSON.stringify(got)).not.toContain(SEARCH_KEY);
      scriptOneSearch('breakwater');
      const msg = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 300,
        messages: ASK,
        tools: [SERVER_TOOL],
      });
      const entries = (msg.content[1] as Anthropic.WebSearchToolResultBlock)
        .content as Anthropic.WebSearchResultBlock[];
      expect(entries.map((e) => e.url)).toEqual([FAKE_RESULTS[0]!.url]);
      const req = search.requests[0]!;
      if (backend === 'brave') {
        expect(req).toMatchObject({ method: 'GET', query: { q: 'breakwater', count: '1' } });
        expect(req.headers['x-subscription-token']).toBe(SEARCH_KEY);
      } else {
        expect(req).toMatchObject({
          method: 'POST',
          body: { query: 'breakwater', max_results: 1 },
        });
        expect(req.headers.authorization).toBe(`Bearer ${SEARCH_KEY}`);
      }
      // The key is never in the log nor in the gateway's answers.
      expect(gw.log.lines.join('\n')).not.toContain(SEARCH_KEY);
      expect(JSON.stringify(msg)).not.toContain(SEARCH_KEY);
    });
  }
});

describe('/api/web-search is outside input', () => {
  const put = (body: string) => gw.admin('/api/web-search', { method: 'PUT', body });
  const restore = () => put(JSON.stringify({ backend: 'searxng', url: search.url }));

  it.each([
    ['null', 'null'],
    ['an array', '[]'],
    ['a string', '"brave"'],
    ['not JSON', '{"backend":'],
    ['a wrong-typed backend', '{"backend":5}'],
    ['a wrong-typed maxResults', '{"backend":"brave","maxResults":"9"}'],
    ['an unknown field', '{"backend":"brave","extra":1}'],
    [
      'a deeply nested value',
      `{"backend":"brave","url":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
    ],
    ['a huge url', JSON.stringify({ backend: 'searxng', url: `http://x/${'a'.repeat(500_000)}` })],
  ])('refuses %s with a clear 400 and keeps the backend', async (_what, body) => {
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBeTruthy();
    const got = await (await gw.admin('/api/web-search')).json();
    expect(got.webSearch).toMatchObject({ backend: 'searxng', url: search.url });
  });

  it('never echoes a key given in the wrong place', async () => {
    const res = await put(JSON.stringify({ backend: 'brave', apiKey: { key: SEARCH_KEY } }));
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain(SEARCH_KEY);
    const extra = await put(JSON.stringify({ backend: 'brave', [SEARCH_KEY]: 1 }));
    expect(extra.status).toBe(400);
    expect(gw.log.lines.join('\n')).not.toContain(SEARCH_KEY);
  });

  it('keeps a stored key for the same backend and address only, never for another address', async () => {
    const brave = `${search.url}/res/v1/web/search`;
    try {
      expect(
        (await put(JSON.stringify({ backend: 'brave', url: brave, apiKey: SEARCH_KEY }))).status,
      ).toBe(200);
      const same = await (
        await put(JSON.stringify({ backend: 'brave', url: brave, maxResults: 2 }))
      ).json();
      expect(same.webSearch).toMatchObject({ hasSecret: true, maxResults: 2 });
      const moved = await (
        await put(JSON.stringify({ backend: 'brave', url: 'https://elsewhere.example/search' }))
      ).json();
      expect(moved.webSearch.hasSecret).toBe(false);
    } finally {
      await restore();
    }
  });

  it('concurrent saves leave one of them whole', async () => {
    try {
      const bodies = Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({
          backend: 'searxng',
          url: `${search.url}/n${i}`,
          maxResults: (i % 20) + 1,
        }),
      );
      const answers = await Promise.all(bodies.map(put));
      expect(answers.map((r) => r.status)).toEqual(bodies.map(() => 200));
      const got = (await (await gw.admin('/api/web-search')).json()).webSearch;
      const i = Number(/\/n(\d+)$/.exec(got.url)?.[1]);
      expect(got.maxResults).toBe((i % 20) + 1);
    } finally {
      await restore();
    }
  });
});
