import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, RequestLogEntry } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';
import { seeded } from '../unit/strategy-fixtures';

const KEY = 'sk-test-strategies-0123456789abcdef';

/** `p` on the primary upstream (connections p-1, p-2), `b` on the backup, and a combo per strategy. */
function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'p',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [
          { id: 'p-1', apiKey: KEY, maxConcurrent: 1 },
          { id: 'p-2', apiKey: KEY, maxConcurrent: 1 },
        ],
        models: [
          { id: 'm', contextWindow: 4000, price: { input: 10, output: 30 } },
          { id: 'solo', contextWindow: 4000 },
        ],
      },
      {
        id: 'b',
        format: 'openai',
        baseUrl: `${backup.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'b-1', apiKey: KEY }],
        models: [{ id: 'm', contextWindow: 100_000, price: { input: 0.1, output: 0.4 } }],
      },
    ],
    combos: [
      { name: 'w', strategy: 'weighted', targets: [{ target: 'p/m@p-1', weight: 3 }, 'b/m'] },
      { name: 'rr', strategy: 'round-robin', targets: ['p/m@p-1', 'b/m'] },
      { name: 'ff', strategy: 'fill-first', targets: ['p/m@p-1', 'b/m'] },
      { name: 'p2c', strategy: 'p2c', targets: ['p/m@p-1', 'b/m'] },
      { name: 'lkgp', strategy: 'lkgp', targets: ['p/m@p-1', 'b/m'] },
      { name: 'cheap', strategy: 'cost-optimized', targets: ['p/m@p-1', 'b/m'] },
      { name: 'ctx', strategy: 'context-optimized', targets: ['b/m', 'p/m@p-1'] },
      { name: 'ctx-small', strategy: 'context-optimized', targets: ['p/m@p-1', 'p/solo@p-2'] },
      { name: 'cache', strategy: 'cache-optimized', targets: ['p/m@p-1', 'b/m'] },
      { name: 'head', strategy: 'headroom', targets: ['p/m@p-1', 'b/m'] },
      { name: 'share', strategy: 'quota-share', targets: ['p/m'] },
    ],
  };
}

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway({ config, random: seeded(2026) });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

const hi = [{ role: 'user' as const, content: 'hi' }];

async function chat(model: string, content = 'hi', extra: Record<string, unknown> = {}) {
  const { data, response } = await openai.chat.completions
    .create({ model, messages: [{ role: 'user', content }], ...extra })
    .withResponse();
  return {
    data,
    decision: decodeURIComponent(response.headers.get('x-breakwater-decision') ?? ''),
  };
}

async function streamChat(model: string) {
  const { data: stream, response } = await openai.chat.completions
    .create({ model, messages: hi, stream: true })
    .withResponse();
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return {
    text,
    decision: decodeURIComponent(response.headers.get('x-breakwater-decision') ?? ''),
  };
}

/**
 * Starts a slow stream to `model` and resolves once it is in flight, with the connection that
 * holds it (from the state's in-flight counts).
 */
async function holdStream(model: string) {
  for (const u of [gw.primary, gw.backup]) u.script({ chunkDelayMs: 300, chunks: 3 });
  const before = gw.primary.requestCount + gw.backup.requestCount;
  const done = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: hi, stream: true }),
  }).then((r) => r.text());
  await eventually(() => gw.primary.requestCount + gw.backup.requestCount > before);
  const state = (await (await gw.admin('/api/state')).json()) as {
    connections: { id: string; inFlight: number }[];
  };
  const busy = state.connections.find((c) => c.inFlight > 0)?.id;
  for (const u of [gw.primary, gw.backup]) u.reset();
  // Wrapped: an async function returning the promise itself would wait for the whole stream.
  return { done, busy };
}

describe('weighted', () => {
  it('splits about 3:1 and says why, streaming or not', async () => {
    let primary = 0;
    for (let i = 0; i < 40; i++) {
      const { decision } = i % 2 === 0 ? await chat('w') : await streamChat('w');
      expect(decision).toMatch(
        /^combo w \(weighted\); picked (p\/m: weight 3|b\/m: weight 1) of 4; /,
      );
      if (decision.includes('p/m@p-1 served')) primary++;
    }
    expect(gw.primary.requestCount).toBe(primary);
    expect(primary).toBeGreaterThanOrEqual(22);
    expect(primary).toBeLessThanOrEqual(38);
  });
});

describe('round-robin', () => {
  it('alternates between the targets, streaming and not', async () => {
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { decision } = i < 2 ? await chat('rr') : await streamChat('rr');
      served.push(decision.includes('b/m@b-1 served') ? 'b' : 'p');
    }
    expect(served).toEqual(['p', 'b', 'p', 'b']);
    expect(gw.primary.requestCount).toBe(2);
    expect(gw.backup.requestCount).toBe(2);
  });
});

describe('fill-first and p2c', () => {
  it('fill-first: the next target once the first is at maxConcurrent', async () => {
    const held = await holdStream('ff');
    const { decision } = await chat('ff');
    expect(decision).toBe('combo ff (fill-first); picked b/m: p/m saturated; b/m@b-1 served');
    await held.done;
    expect((await chat('ff')).decision).toContain('picked p/m: not saturated');
  });
  it('fill-first: a cooling first target counts as saturated, and the header says so', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '30' } });
    expect((await chat('ff')).decision).toContain('b/m@b-1 served');
    expect((await streamChat('ff')).decision).toBe(
      'combo ff (fill-first); picked b/m: p/m saturated; b/m@b-1 served',
    );
  });
  it('p2c: the less loaded of the two, with the loads in the header', async () => {
    const held = await holdStream('p2c');
    const other = held.busy === 'p-1' ? 'b/m' : 'p/m';
    const busy = held.busy === 'p-1' ? 'p/m' : 'b/m';
    const { text, decision } = await streamChat('p2c');
    expect(text.length).toBeGreaterThan(0);
    expect(decision).toContain(`combo p2c (p2c); picked ${other} over ${busy}: 0 in flight vs 1; `);
    await held.done;
  });
});

describe('lkgp', () => {
  it('keeps the target that last served until it fails', async () => {
    gw.primary.script({ status: 503 });
    expect((await chat('lkgp')).decision).toContain('b/m@b-1 served');
    const next = await chat('lkgp');
    expect(next.decision).toBe('combo lkgp (lkgp); picked b/m: last known good; b/m@b-1 served');
    expect(gw.primary.requestCount).toBe(1);
    gw.backup.script({ status: 503 });
    expect((await streamChat('lkgp')).decision).toContain('p/m@p-1 served');
    expect((await chat('lkgp')).decision).toContain('picked p/m: last known good');
  });
});

describe('cost-optimized', () => {
  it('the cheaper target for this request first, with both estimates', async () => {
    const { decision } = await chat('cheap', 'hello there', { max_tokens: 100 });
    expect(decision).toMatch(
      /^combo cheap \(cost-optimized\); picked b\/m: ~\$0\.\d+ vs \$0\.\d+ at p\/m \(~\d+ tokens in\); b\/m@b-1 served$/,
    );
    expect(gw.primary.requestCount).toBe(0);
  });
  it('streaming, from an Anthropic client', async () => {
    const stream = anthropic.messages.stream({
      model: 'cheap',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect((await stream.finalMessage()).content[0]).toMatchObject({ type: 'text' });
    const { response } = await stream.withResponse();
    expect(decodeURIComponent(response.headers.get('x-breakwater-decision')!)).toMatch(
      /^combo cheap \(cost-optimized\); picked b\/m: .*; b\/m@b-1 served$/,
    );
    expect(gw.primary.requestCount).toBe(0);
  });
});

describe('context-optimized', () => {
  it('the smallest window that fits; a prompt too big for one goes to the other', async () => {
    expect((await chat('ctx', 'short', { max_tokens: 100 })).decision).toContain(
      'picked p/m: window 4000 fits',
    );
    const long = 'word '.repeat(8000);
    const { decision } = await streamChatWith('ctx', long);
    expect(decision).toMatch(
      /picked b\/m: window 100000 fits ~\d+ tokens; 1 too small; b\/m@b-1 served/,
    );
  });
  it('none fits: 400 context_length_exceeded in the caller format, no upstream call', async () => {
    const long = 'word '.repeat(8000);
    const err = await anthropic.messages
      .create({ model: 'ctx-small', max_tokens: 100, messages: [{ role: 'user', content: long }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as {
      error: { message: string };
    };
    expect(body.error.message).toMatch(
      /needs about \d+ tokens .*largest context window .* is 4000/,
    );
    expect(gw.primary.requestCount + gw.backup.requestCount).toBe(0);
  });
});

async function streamChatWith(model: string, content: string) {
  const { data: stream, response } = await openai.chat.completions
    .create({ model, messages: [{ role: 'user', content }], stream: true })
    .withResponse();
  for await (const _ of stream) {
    // drained
  }
  return { decision: decodeURIComponent(response.headers.get('x-breakwater-decision') ?? '') };
}

describe('cache-optimized', () => {
  it('the same prompt prefix goes back to the target that served it', async () => {
    gw.primary.script({ status: 503 });
    const system = { role: 'system' as const, content: 'You are a careful coder.' };
    const first = await openai.chat.completions
      .create({ model: 'cache', messages: [system, { role: 'user', content: 'task one' }] })
      .withResponse();
    expect(decodeURIComponent(first.response.headers.get('x-breakwater-decision')!)).toMatch(
      /not seen yet: configured order; .*b\/m@b-1 served/,
    );
    const again = await openai.chat.completions
      .create({
        model: 'cache',
        messages: [
          system,
          { role: 'user', content: 'task one' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'more' },
        ],
        stream: true,
      })
      .withResponse();
    for await (const _ of again.data) {
      // drained
    }
    expect(decodeURIComponent(again.response.headers.get('x-breakwater-decision')!)).toMatch(
      /^combo cache \(cache-optimized\); picked b\/m: prefix [0-9a-f]{8} cached there; b\/m@b-1 served$/,
    );
    const other = await chat('cache', 'a different task');
    expect(other.decision).toContain('not seen yet: configured order');
  });
});

describe('headroom', () => {
  it('learns remaining quota from rate-limit headers and prefers the most left', async () => {
    const quota = (remaining: number) => ({
      'x-ratelimit-remaining-requests': String(remaining),
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-reset-requests': '30s',
    });
    gw.primary.script({ status: 503, headers: quota(5) });
    gw.backup.setDefault({ headers: quota(90) });
    const first = await chat('head');
    expect(first.decision).toContain('no quota announced by any connection yet: configured order');
    const { decision } = await streamChat('head');
    expect(decision).toBe(
      'combo head (headroom); picked b/m@b-1: 90 percent of its quota left; b/m@b-1 served',
    );
  });
});

describe('quota-share', () => {
  it('a connection at its limit goes behind the other, never out', async () => {
    const held = await holdStream('share');
    const free = held.busy === 'p-1' ? 'p-2' : 'p-1';
    const { decision } = await chat('share');
    expect(decision).toBe(
      `combo share (quota-share); picked p/m@${free} over p/m@${held.busy}: 0 in flight vs at its limit; p/m@${free} served`,
    );
    const streamed = await streamChat('share');
    expect(streamed.text.length).toBeGreaterThan(0);
    expect(streamed.decision).toContain(`picked p/m@${free} over p/m@${held.busy}`);
    await held.done;
  });
});

describe('the request log', () => {
  it('stores the decision with the strategy and its reason', async () => {
    await chat('rr');
    await eventually(async () => {
      const rows = (await (await gw.admin('/api/logs?limit=1')).json()) as
        | RequestLogEntry[]
        | { data?: RequestLogEntry[] };
      const list = Array.isArray(rows) ? rows : (rows.data ?? []);
      return list[0]?.decision?.startsWith('combo rr (round-robin); picked ') === true;
    });
  });
});
