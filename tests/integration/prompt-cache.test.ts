import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, EngineEvent, SessionCacheView } from '../../src/shared/contract';
import { eventually, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

// Issue 30: 12-turn agent sessions (6 KB system prompt, six tools) through the fake upstream's
// per-key prompt cache (tests/support/fake-cache.ts), compared with the same session sent
// straight to the fake with Claude Code's breakpoints.

const TURNS = 12;
const KEY_A = 'sk-ant-cache-a-0123456789abcdef';
const KEY_B = 'sk-ant-cache-b-0123456789abcdef';
const DIRECT_KEY = 'sk-ant-direct-0123456789abcdef';

const SYSTEM = Array.from(
  { length: 60 },
  (_, i) => `Rule ${i}: read the code before you change it, and keep each change small. `,
)
  .join('')
  .padEnd(6 * 1024, '.');

const TOOL_NAMES = ['read_file', 'write_file', 'list_dir', 'run_shell', 'search', 'edit_file'];
const schema = {
  type: 'object' as const,
  properties: { path: { type: 'string', description: 'A path inside the workspace.' } },
  required: ['path'],
};
const description = (name: string) =>
  `${name}: one of the agent's tools. It acts on the workspace and answers with what it did, ` +
  'or an error that says why it could not.';

const userText = (i: number) =>
  `Turn ${i}: look at src/module-${i}.ts, say what it does, and suggest one improvement. ` +
  'Keep the answer short. '.repeat(20);

interface Turn {
  read: number;
  total: number;
}

const share = (turns: Turn[]) =>
  turns.reduce((n, t) => n + t.read, 0) / turns.reduce((n, t) => n + t.total, 0);

type Mark = { cache_control?: { type: 'ephemeral' } };

/** An Anthropic-client session with Claude Code's breakpoints: tools, system, newest turn. */
async function anthropicSession(
  client: Anthropic,
  model: string,
  headers: Record<string, string>,
  before: (turn: number) => void = () => {},
): Promise<Turn[]> {
  const tools: (Anthropic.Tool & Mark)[] = TOOL_NAMES.map((name) => ({
    name,
    description: description(name),
    input_schema: schema,
  }));
  tools[tools.length - 1]!.cache_control = { type: 'ephemeral' };
  const history: Anthropic.MessageParam[] = [];
  const out: Turn[] = [];
  for (let i = 1; i <= TURNS; i++) {
    before(i);
    history.push({ role: 'user', content: userText(i) });
    const messages = history.map((m, j) =>
      j === history.length - 1
        ? {
            role: m.role,
            content: [
              { type: 'text' as const, text: m.content as string, cache_control: ephemeral },
            ],
          }
        : m,
    );
    const res = await client.messages.create(
      {
        model,
        max_tokens: 256,
        system: [{ type: 'text', text: SYSTEM, cache_control: ephemeral }],
        tools,
        messages,
      },
      { headers },
    );
    const u = res.usage;
    const read = u.cache_read_input_tokens ?? 0;
    out.push({ read, total: u.input_tokens + read + (u.cache_creation_input_tokens ?? 0) });
    const reply = res.content.find((b) => b.type === 'text');
    history.push({ role: 'assistant', content: reply?.type === 'text' ? reply.text : '' });
  }
  return out;
}
const ephemeral = { type: 'ephemeral' as const };

/** A Chat-client session (the official SDK): no way to say where the cache ends. */
async function chatSession(client: OpenAI, model: string): Promise<Turn[]> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
  const tools: OpenAI.ChatCompletionTool[] = TOOL_NAMES.map((name) => ({
    type: 'function',
    function: { name, description: description(name), parameters: schema },
  }));
  const out: Turn[] = [];
  for (let i = 1; i <= TURNS; i++) {
    messages.push({ role: 'user', content: userText(i) });
    const res = await client.chat.completions.create({ model, messages, tools, max_tokens: 256 });
    const u = res.usage!;
    out.push({ read: u.prompt_tokens_details?.cached_tokens ?? 0, total: u.prompt_tokens });
    messages.push({ role: 'assistant', content: res.choices[0]!.message.content ?? '' });
  }
  return out;
}

/** A Responses-client session (the official SDK), the whole conversation sent every turn. */
async function responsesSession(client: OpenAI, model: string): Promise<Turn[]> {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  const tools: OpenAI.Responses.FunctionTool[] = TOOL_NAMES.map((name) => ({
    type: 'function',
    name,
    description: description(name),
    parameters: schema,
    strict: false,
  }));
  const out: Turn[] = [];
  for (let i = 1; i <= TURNS; i++) {
    input.push({ role: 'user', content: userText(i) });
    const res = await client.responses.create({ model, instructions: SYSTEM, input, tools });
    const u = res.usage!;
    out.push({ read: u.input_tokens_details.cached_tokens, total: u.input_tokens });
    input.push({ role: 'assistant', content: res.output_text });
  }
  return out;
}

function config(gw: { primary: { url: string } }): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: gw.primary.url,
        authClass: 'api_key',
        connections: [
          { id: 'an-1', apiKey: KEY_A },
          { id: 'an-2', apiKey: KEY_B },
        ],
        models: ['claude-test'],
      },
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${gw.primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: ['gpt-test'],
      },
      {
        id: 'bz',
        format: 'openai',
        baseUrl: `${gw.primary.url}/v1`,
        authClass: 'api_key',
        connections: [
          {
            id: 'bz-1',
            apiKey: OPENAI_KEY,
            rateLimit: { concurrency: 1 },
            rateLimitOverrides: { maxQueueDepth: 1 },
          },
          { id: 'bz-2', apiKey: `${OPENAI_KEY}-2` },
        ],
        models: ['gpt-busy'],
      },
      {
        id: 'anoff',
        format: 'anthropic',
        baseUrl: gw.primary.url,
        authClass: 'api_key',
        connections: [{ id: 'anoff-1', apiKey: KEY_A }],
        models: ['claude-off'],
        promptCache: { breakpoints: false },
      },
      {
        id: 'oaoff',
        format: 'openai',
        baseUrl: `${gw.primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oaoff-1', apiKey: OPENAI_KEY }],
        models: ['gpt-off'],
        promptCache: { cacheKey: false },
      },
    ],
    combos: [
      {
        name: 'rr',
        strategy: 'round-robin',
        targets: ['an/claude-test@an-1', 'an/claude-test@an-2'],
      },
    ],
  };
}

let gw: TestGateway;
let direct: Turn[];
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway({
    config: (primary) => config({ primary }),
    fakes: { promptCache: true },
  });
  gw.engine.onEvent((e) => events.push(e));
  const straight = new Anthropic({ baseURL: gw.primary.url, apiKey: DIRECT_KEY, maxRetries: 0 });
  direct = await anthropicSession(straight, 'claude-test', {});
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.primary.promptCache!.clear();
  gw.resetResilience();
  events.length = 0;
});

const gatewayAnthropic = () => new Anthropic({ baseURL: gw.url, apiKey: 'unused', maxRetries: 0 });

describe('prompt caching through any route (12-turn sessions, fake per-key cache)', () => {
  it('the direct Anthropic session reads most of its input from the cache', () => {
    expect(share(direct)).toBeGreaterThan(0.8);
  });

  it('a Chat client (OpenAI SDK) on an Anthropic upstream reads ≥ 90 % of what the direct session reads', async () => {
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'unused',
      maxRetries: 0,
      defaultHeaders: { 'x-session-id': 'chat-on-anthropic' },
    });
    const turns = await chatSession(client, 'an/claude-test');
    expect(share(turns)).toBeGreaterThanOrEqual(0.9 * share(direct));
    const sent = gw.primary.requests.filter((r) => r.path.includes('/messages')).at(-1)!.body;
    // Placed as an agent would: at most four, the tools, the system prompt, the newest turns.
    expect(sent.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(sent).split('cache_control').length - 1).toBeLessThanOrEqual(4);
  });

  it('a Responses client (OpenAI SDK) on an Anthropic upstream reads as much as well', async () => {
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'unused',
      maxRetries: 0,
      defaultHeaders: { 'x-session-id': 'responses-on-anthropic' },
    });
    const turns = await responsesSession(client, 'an/claude-test');
    expect(share(turns)).toBeGreaterThanOrEqual(0.9 * share(direct));
  });

  it("a Chat client's prompt_cache_retention 24h asks Anthropic for the 1-hour TTL", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    await client.chat.completions.create({
      model: 'an/claude-test',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'hi' },
      ],
      prompt_cache_retention: '24h',
    });
    const sent = gw.primary.requests.at(-1)!.body;
    expect(sent.system[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(sent.prompt_cache_retention).toBeUndefined();
  });

  it('an Anthropic client round-robin over two keys stays at parity (affinity)', async () => {
    const turns = await anthropicSession(gatewayAnthropic(), 'rr', {
      'x-claude-code-session-id': 'rr-session',
    });
    expect(share(turns)).toBeGreaterThanOrEqual(0.9 * share(direct));
    expect(events.filter((e) => e.type === 'cache.lost')).toEqual([]);
  });

  it('an Anthropic client on a Chat upstream stays at parity, with a cache key from its session', async () => {
    const turns = await anthropicSession(gatewayAnthropic(), 'oa/gpt-test', {
      'x-claude-code-session-id': 'anthropic-on-chat',
    });
    expect(share(turns)).toBeGreaterThanOrEqual(0.9 * share(direct));
    const sent = gw.primary.requests.at(-1)!;
    expect(sent.path).toContain('/chat/completions');
    expect(sent.body.prompt_cache_key).toMatch(/^bw-[0-9a-f]{32}$/);
    expect(sent.rawBody).not.toContain('anthropic-on-chat');
  });

  it('a session forced to another key by a 503 produces one cache.lost naming the failover, then returns to parity', async () => {
    const turns = await anthropicSession(
      gatewayAnthropic(),
      'rr',
      { 'x-claude-code-session-id': 'failover-session' },
      (turn) => {
        if (turn === 6) gw.primary.script({ status: 503 });
      },
    );
    await eventually(() => events.some((e) => e.type === 'cache.lost'));
    const lost = events.filter((e) => e.type === 'cache.lost');
    expect(lost).toHaveLength(1);
    const loss = lost[0] as Extract<EngineEvent, { type: 'cache.lost' }>;
    expect(loss).toMatchObject({ session: 'failover-session', turn: 6, reason: 'moved' });
    expect(loss.detail).toContain('failover');
    expect(loss.detail).toContain('HTTP 503');
    expect(turns[5]!.read).toBe(0);
    expect(share(turns.slice(6))).toBeGreaterThanOrEqual(0.9 * share(direct.slice(6)));
    // The request log says the same, after the decision that moved the session off its key.
    let rows: { decision: string | null }[] = [];
    await eventually(async () => {
      rows = (await (await gw.admin('/api/logs?limit=50')).json()) as typeof rows;
      return rows.some((r) => r.decision?.includes('cache lost'));
    });
    const row = rows.find((r) => r.decision?.includes('cache lost'))!;
    const [, from] = /session left (an-[12]), the connection holding its cache/.exec(
      row.decision!,
    )!;
    const to = from === 'an-1' ? 'an-2' : 'an-1';
    expect(row.decision).toContain(`cache lost: session moved from ${from} to ${to}: failover`);
    expect(rows.filter((r) => r.decision?.includes('cache lost'))).toHaveLength(1);
    // The Usage page's view: the session's turns, the one where the cache fell, and why.
    const { sessions } = (await (await gw.admin('/api/usage/cache')).json()) as {
      sessions: SessionCacheView[];
    };
    const view = sessions.find((v) => v.session === 'failover-session')!;
    expect(view.turns).toBe(TURNS);
    expect(view.history.filter((t) => t.lost).map((t) => [t.turn, t.lost])).toEqual([[6, 'moved']]);
    expect(view.hitRate).toBeGreaterThan(0.7);
  });

  describe('prompt_cache_key for OpenAI-format providers', () => {
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const hi = { messages: [{ role: 'user', content: 'hi' }] };

    it('a passed-through Chat request of a session gets one derived from it', async () => {
      const res = await post({ model: 'oa/gpt-test', ...hi }, { 'x-session-id': 'chat-session' });
      expect(res.status).toBe(200);
      const sent = gw.primary.requests.at(-1)!;
      expect(sent.body.prompt_cache_key).toMatch(/^bw-[0-9a-f]{32}$/);
      expect(sent.rawBody).not.toContain('chat-session');
      // Same session, same key: the provider keeps the session on one cache.
      await post({ model: 'oa/gpt-test', ...hi }, { 'x-session-id': 'chat-session' });
      expect(gw.primary.requests.at(-1)!.body.prompt_cache_key).toBe(sent.body.prompt_cache_key);
    });

    it("the client's own key is kept, once; no session, no key", async () => {
      await post(
        { model: 'oa/gpt-test', ...hi, prompt_cache_key: 'mine' },
        { 'x-session-id': 'other' },
      );
      const raw = gw.primary.requests.at(-1)!.rawBody;
      expect(raw.split('prompt_cache_key').length - 1).toBe(1);
      expect(JSON.parse(raw).prompt_cache_key).toBe('mine');
      await post({ model: 'oa/gpt-test', ...hi });
      expect(gw.primary.requests.at(-1)!.body.prompt_cache_key).toBeUndefined();
    });

    it('a provider with promptCache.cacheKey false gets none; breakpoints false gets none', async () => {
      await post({ model: 'oaoff/gpt-off', ...hi }, { 'x-session-id': 'off' });
      expect(gw.primary.requests.at(-1)!.body.prompt_cache_key).toBeUndefined();
      await post(
        {
          model: 'anoff/claude-off',
          messages: [{ role: 'system', content: SYSTEM }, ...hi.messages],
        },
        { 'x-session-id': 'off' },
      );
      expect(gw.primary.requests.at(-1)!.rawBody).not.toContain('cache_control');
      // The same request on a provider that keeps them on still gets its own translation.
      await post(
        {
          model: 'an/claude-test',
          messages: [{ role: 'system', content: SYSTEM }, ...hi.messages],
        },
        { 'x-session-id': 'off' },
      );
      expect(gw.primary.requests.at(-1)!.rawBody).toContain('cache_control');
    });

    it('a promptCache of the wrong shape is refused with a clear error', async () => {
      const res = await gw.admin('/api/providers', {
        method: 'POST',
        body: JSON.stringify({
          id: 'bad',
          format: 'openai',
          baseUrl: 'http://127.0.0.1:9/v1',
          models: ['x'],
          promptCache: { cacheKey: 'yes' },
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('promptCache.cacheKey');
    });
  });

  describe('a session whose cache connection is only busy waits for it instead of moving', () => {
    const post = (session: string | null) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(session ? { 'x-session-id': session } : {}),
        },
        body: JSON.stringify({ model: 'bz/gpt-busy', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const setWait = (ms: number | null) =>
      gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'sessionAffinity.cacheWaitMs': ms }),
      });

    /** Pins `session` to bz-1, then fills bz-1's queue (one running, one waiting). */
    async function busy(session: string): Promise<Promise<Response>[]> {
      expect((await post(session)).headers.get('x-breakwater-connection')).toBe('bz-1');
      gw.primary.reset();
      gw.primary.setDefault({ delayMs: 400 });
      const running = post(null);
      await gw.primary.waitForRequests(1);
      const waiting = post(null);
      await new Promise((r) => setTimeout(r, 50));
      return [running, waiting];
    }

    it('waits (bounded by sessionAffinity.cacheWaitMs) and says so', async () => {
      const others = await busy('busy-wait');
      const res = await post('busy-wait');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-breakwater-connection')).toBe('bz-1');
      expect(res.headers.get('x-breakwater-decision')).toMatch(
        /waited \d+ ms for bz-1, the connection holding the session's cache \(queue full\), instead of moving/,
      );
      await Promise.all(others);
      gw.primary.setDefault({});
    });

    it('with the wait off (0) it moves at once, and the decision says it left the cache', async () => {
      expect((await setWait(0)).status).toBe(200);
      try {
        const others = await busy('busy-move');
        const res = await post('busy-move');
        expect(res.headers.get('x-breakwater-connection')).toBe('bz-2');
        expect(res.headers.get('x-breakwater-decision')).toContain(
          'session left bz-1, the connection holding its cache (bz/gpt-busy@bz-1 skipped (RATE_LIMIT_QUEUE_FULL))',
        );
        await Promise.all(others);
      } finally {
        gw.primary.setDefault({});
        await setWait(null);
      }
    });
  });
});
