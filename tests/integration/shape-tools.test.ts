import { describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { standardConfig, type TestGateway } from '../support/gateway';
import { shapeHarness } from './shape-harness';

// Tool-count limit (issue 17): a 400 stating a maximum number of tools is remembered per provider
// and model. The request that met it fails over at once to a target without the limit, or gets a
// clear 400 naming it; later requests with more tools skip the target before any upstream call.

function toolsConfig(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  const config = standardConfig(primary, backup);
  config.combos = [
    ...(config.combos ?? []),
    { name: 'claude-plus', strategy: 'priority', targets: ['an/claude-test', 'oa2/gpt-backup'] },
    { name: 'compat', strategy: 'priority', targets: ['oa2/gpt-backup', 'oa/gpt-test'] },
  ];
  return config;
}

const h = shapeHarness(undefined, toolsConfig);
const tools = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'function',
    function: { name: `t${i}`, parameters: { type: 'object', properties: {} } },
  }));

function chat(model: string, toolCount: number): Promise<Response> {
  return fetch(`${h.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools(toolCount),
    }),
  });
}

function messages(model: string, toolCount: number): Promise<Response> {
  return fetch(`${h.gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: Array.from({ length: toolCount }, (_, i) => ({
        name: `t${i}`,
        input_schema: { type: 'object' },
      })),
    }),
  });
}

const posts = (fake: TestGateway['primary']) => fake.requests.filter((r) => r.method === 'POST');

const OPENAI_LIMIT: FakeStep = {
  status: 400,
  body: {
    error: {
      message:
        "Invalid 'tools': array too long. Expected an array with maximum length 2, but got an array with length 3 instead.",
      type: 'invalid_request_error',
      param: 'tools',
      code: 'array_above_max_length',
    },
  },
};
const ANTHROPIC_LIMIT: FakeStep = {
  status: 400,
  body: {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: 'tools: List should have at most 2 items after validation, not 3',
    },
  },
};
const COMPATIBLE_LIMIT: FakeStep = {
  status: 400,
  body: {
    error: { message: "'tools' : maximum number of items is 2", type: 'invalid_request_error' },
  },
};

interface Case {
  name: string;
  refusal: FakeStep;
  /** The fake of the limited target, and of the one without the limit. */
  limited: () => FakeUpstream;
  other: () => FakeUpstream;
  send: () => Promise<Response>;
  provider: string;
  label: string;
}

const CASES: Case[] = [
  {
    name: 'OpenAI',
    refusal: OPENAI_LIMIT,
    limited: () => h.gw.primary,
    other: () => h.gw.backup,
    send: () => chat('coder', 3),
    provider: 'oa',
    label: 'oa/gpt-test@oa-1',
  },
  {
    name: 'Anthropic',
    refusal: ANTHROPIC_LIMIT,
    limited: () => h.gw.primary,
    other: () => h.gw.backup,
    send: () => messages('claude-plus', 3),
    provider: 'an',
    label: 'an/claude-test@an-1',
  },
  {
    name: 'OpenAI-compatible (JSON-schema validator)',
    refusal: COMPATIBLE_LIMIT,
    limited: () => h.gw.backup,
    other: () => h.gw.primary,
    send: () => chat('compat', 3),
    provider: 'oa2',
    label: 'oa2/gpt-backup@oa2-1',
  },
];

describe('a provider that states a tool limit', () => {
  for (const c of CASES) {
    it(`${c.name}: the first request fails over at once; later ones skip the target, after a restart too`, async () => {
      c.limited().script(c.refusal);
      const first = await c.send();
      expect(first.status).toBe(200);
      expect(first.headers.get('x-breakwater-decision')).toContain(
        `${c.label} takes at most 2 tools; failing over to a target without that limit`,
      );
      expect(posts(c.limited())).toHaveLength(1);
      expect(posts(c.other())).toHaveLength(1);
      expect(h.events).toContainEqual(
        expect.objectContaining({ type: 'shape.tool_limit', provider: c.provider, max: 2 }),
      );
      expect(h.events).toContainEqual(
        expect.objectContaining({ type: 'shape.failover', mechanism: 'tool_limit' }),
      );

      // The second request goes to the target without the limit at once.
      const second = await c.send();
      expect(second.status).toBe(200);
      expect(second.headers.get('x-breakwater-decision')).toContain(
        `${c.label} skipped (tool_limit)`,
      );
      expect(posts(c.limited())).toHaveLength(1);
      expect(posts(c.other())).toHaveLength(2);

      await h.gw.restart();
      h.listen();
      expect((await c.send()).status).toBe(200);
      expect(posts(c.limited())).toHaveLength(1);
      expect(posts(c.other())).toHaveLength(3);
    });
  }

  it('no target without the limit left: a clear 400 in the client’s format, after one upstream call', async () => {
    h.gw.primary.script(ANTHROPIC_LIMIT);
    const first = await messages('an/claude-test', 3);
    expect(first.status).toBe(400);
    const body = (await first.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(
      /3 tools.*an\/claude-test takes at most 2 \(as it just answered\)/,
    );
    expect(posts(h.gw.primary)).toHaveLength(1);

    // Later: the same 400 with no upstream call; within the limit, as usual.
    const direct = await chat('oa/gpt-test', 3);
    expect(direct.status).toBe(200);
    const again = await messages('an/claude-test', 3);
    const json = (await again.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('too_many_tools');
    expect(json.error.message).toMatch(/as it said in an earlier answer/);
    expect(posts(h.gw.primary)).toHaveLength(2);
    expect((await messages('an/claude-test', 2)).status).toBe(200);
    expect(posts(h.gw.primary)).toHaveLength(3);
  });

  it('learnt limits are listed after a restart', async () => {
    h.gw.primary.script(OPENAI_LIMIT);
    h.gw.backup.script(COMPATIBLE_LIMIT);
    await chat('oa/gpt-test', 3);
    await chat('oa2/gpt-backup', 3);
    await h.gw.restart();
    h.listen();
    const learnt = (await (await h.gw.admin('/api/resilience/learned-fixes')).json()) as {
      provider: string;
      fix: string;
    }[];
    expect(learnt.map((l) => `${l.provider}: ${l.fix}`).sort()).toEqual([
      'oa2: at most 2 tools',
      'oa: at most 2 tools',
    ]);
  });
});
