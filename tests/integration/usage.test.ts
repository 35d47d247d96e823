import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, UsageReport, UsageRow } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import {
  ANTHROPIC_KEY,
  eventually,
  OPENAI_KEY,
  startGateway,
  type TestGateway,
} from '../support/gateway';

// USD per million tokens: round numbers, so expected costs are exact.
const GPT_PRICE = { input: 2, output: 8 };
const CLAUDE_PRICE = { input: 3, output: 15 };

function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: [{ id: 'gpt-test', price: GPT_PRICE }],
      },
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: ANTHROPIC_KEY }],
        models: [{ id: 'claude-test', price: CLAUDE_PRICE }],
      },
    ],
    combos: [{ name: 'claude', strategy: 'priority', targets: ['an/claude-test'] }],
  };
}

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => gw.close());

async function usage(query: string): Promise<UsageReport> {
  const res = await gw.admin(`/api/usage?${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as UsageReport;
}

function row(report: UsageReport, group: string): UsageRow | undefined {
  return report.rows.find((r) => r.group === group);
}

const cost = (p: { input: number; output: number }, input: number, output: number) =>
  (input * p.input + output * p.output) / 1e6;

const messages = [{ role: 'user' as const, content: 'Say hello' }];

/** Sends one request of each kind, with the token counts the fake upstream reports for it. */
const CASES: {
  name: string;
  model: string;
  input: number;
  output: number;
  send(): Promise<unknown>;
}[] = [
  {
    name: 'Chat, whole',
    model: 'gpt-test',
    input: 101,
    output: 11,
    send: () => openai.chat.completions.create({ model: 'oa/gpt-test', messages }),
  },
  {
    name: 'Chat, streamed with include_usage',
    model: 'gpt-test',
    input: 102,
    output: 12,
    send: async () => {
      const s = await openai.chat.completions.create({
        model: 'oa/gpt-test',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of s) {
        // drain
      }
    },
  },
  {
    name: 'Responses, whole',
    model: 'gpt-test',
    input: 103,
    output: 13,
    send: () => openai.responses.create({ model: 'oa/gpt-test', input: 'Say hello' }),
  },
  {
    name: 'Responses, streamed',
    model: 'gpt-test',
    input: 104,
    output: 14,
    send: async () => {
      const s = await openai.responses.create({
        model: 'oa/gpt-test',
        input: 'Say hello',
        stream: true,
      });
      for await (const _ of s) {
        // drain
      }
    },
  },
  {
    name: 'Messages, whole',
    model: 'claude-test',
    input: 105,
    output: 15,
    send: () => anthropic.messages.create({ model: 'claude', max_tokens: 64, messages }),
  },
  {
    name: 'Messages, streamed',
    model: 'claude-test',
    input: 106,
    output: 16,
    send: async () => {
      const s = anthropic.messages.stream({ model: 'claude', max_tokens: 64, messages });
      await s.finalMessage();
    },
  },
  {
    name: 'Messages translated to Chat, streamed',
    model: 'gpt-test',
    input: 107,
    output: 17,
    send: async () => {
      const s = anthropic.messages.stream({ model: 'oa/gpt-test', max_tokens: 64, messages });
      await s.finalMessage();
    },
  },
];

describe('usage accounting through the gateway', () => {
  it.each(CASES)(
    '$name: tokens and cost per request match what the upstream reported',
    async (c) => {
      const before = row(await usage('since=1h&by=model'), c.model);
      gw.primary.script({ usage: { input: c.input, output: c.output } });
      await c.send();
      const price = c.model === 'gpt-test' ? GPT_PRICE : CLAUDE_PRICE;
      await eventually(async () => {
        const after = row(await usage('since=1h&by=model'), c.model);
        return (after?.requests ?? 0) === (before?.requests ?? 0) + 1;
      });
      const after = row(await usage('since=1h&by=model'), c.model)!;
      expect(after.inputTokens - (before?.inputTokens ?? 0)).toBe(c.input);
      expect(after.outputTokens - (before?.outputTokens ?? 0)).toBe(c.output);
      expect(after.costUsd - (before?.costUsd ?? 0)).toBeCloseTo(
        cost(price, c.input, c.output),
        12,
      );
    },
  );

  it('groups by provider, connection and combo, and gives a series with a step', async () => {
    const byProvider = await usage('since=1h&by=provider');
    expect(row(byProvider, 'an')?.requests).toBe(2);
    expect(row(byProvider, 'oa')?.requests).toBe(5);
    const byCombo = await usage('since=1h&by=combo');
    expect(row(byCombo, 'claude')?.requests).toBe(2);
    const series = await usage('since=1h&by=connection&step=1m');
    const total = (series.series ?? []).reduce((n, p) => n + p.requests, 0);
    expect(total).toBe(7);
    for (const p of series.series ?? []) expect(p.at % 60_000).toBe(0);
  });

  it('logs the new token fields and the cost on the request row', async () => {
    const res = await gw.admin('/api/logs?limit=1');
    const [entry] = (await res.json()) as { costUsd: number; keyName: string | null }[];
    expect(entry!.costUsd).toBeCloseTo(cost(GPT_PRICE, 107, 17), 12);
    expect(entry!.keyName).toBeNull();
  });

  it('refuses a bad query with the field to blame', async () => {
    for (const [q, field] of [
      ['by=colour', 'by'],
      ['since=yesterday', 'since'],
      ['step=5s', 'step'],
      ['since=30d&step=1m', 'step'],
      // Issue 27: a zero window or step is no query at all (a zero step divided by zero).
      ['since=0m&step=0m', 'since'],
      ['since=1h&step=0m', 'step'],
      ['since=0d', 'since'],
    ]) {
      const res = await gw.admin(`/api/usage?${q}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { field: string } };
      expect(body.error.field).toBe(field);
    }
  });

  it('prompt-cache hit rate (cache reads ÷ input) per connection and per session', async () => {
    const before = row(await usage('since=1h&by=connection'), 'oa-1')!;
    gw.primary.script({
      body: {
        id: 'c-cache',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-test',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' },
        ],
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 10,
          total_tokens: 1010,
          prompt_tokens_details: { cached_tokens: 600 },
        },
      },
    });
    await openai.chat.completions.create({
      model: 'oa/gpt-test',
      messages,
      prompt_cache_key: 'cache-session-1',
    });
    const session = row(await usage('since=1h&by=session'), 'cache-session-1')!;
    expect(session).toMatchObject({ inputTokens: 1000, cacheReadTokens: 600, cacheHitRate: 0.6 });
    const conn = row(await usage('since=1h&by=connection'), 'oa-1')!;
    expect(conn.cacheHitRate).toBeCloseTo(
      (before.cacheReadTokens + 600) / (before.inputTokens + 1000),
      12,
    );
    // Anthropic's answers here reported no cache reads.
    expect(row(await usage('since=1h&by=connection'), 'an-1')!.cacheHitRate).toBe(0);
  });

  it('roll-ups survive a restart (no config)', async () => {
    const before = await usage('since=1h&by=model');
    await gw.restart();
    const after = await usage('since=1h&by=model');
    expect(after.rows).toEqual(before.rows);
    expect(after.rows.reduce((n, r) => n + r.requests, 0)).toBe(8);
  });
});
