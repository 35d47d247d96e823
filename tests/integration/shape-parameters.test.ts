import { describe, expect, it } from 'vitest';
import type { LearnedFixView, Snapshot } from '../../src/shared/contract';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { anthropicError, openaiError, shapeHarness } from './shape-harness';

// Parameter learning and the thinking/effort clamp (issue 17) through the gateway, with each
// provider's own words: OpenAI (`oa`), Anthropic (`an`), and an OpenAI-compatible provider
// speaking Groq's wording (`oa2`, on the backup fake).

const h = shapeHarness((gw) =>
  gw.engine.admin.updateSettings({
    'shapeRepair.parameterLearning': null,
    'shapeRepair.effortClamp': null,
  }),
);
const groqError = (message: string): FakeStep => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error' } },
});

async function chat(model: string, extra: Record<string, unknown>): Promise<Response> {
  return fetch(`${h.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

async function messages(extra: Record<string, unknown>): Promise<Response> {
  return fetch(`${h.gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'an/claude-test',
      max_tokens: 2000,
      messages: [{ role: 'user', content: 'hi' }],
      ...extra,
    }),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON.
function bodies(fake: FakeUpstream): any[] {
  return fake.requests.filter((r) => r.method === 'POST').map((r) => r.body);
}

async function learnt(): Promise<LearnedFixView[]> {
  return (await (await h.gw.admin('/api/resilience/learned-fixes')).json()) as LearnedFixView[];
}

interface Case {
  name: string;
  fake: () => FakeUpstream;
  send: () => Promise<Response>;
  refusal: FakeStep;
  /** The request as first sent, and as corrected. */
  before: (b: Record<string, unknown>) => void;
  after: (b: Record<string, unknown>) => void;
  header: RegExp;
}

const CASES: Case[] = [
  {
    name: 'OpenAI: max_tokens renamed to max_completion_tokens',
    fake: () => h.gw.primary,
    send: () => chat('oa/gpt-test', { max_tokens: 300 }),
    refusal: openaiError(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    ),
    before: (b) => expect(b.max_tokens).toBe(300),
    after: (b) => {
      expect(b.max_tokens).toBeUndefined();
      expect(b.max_completion_tokens).toBe(300);
    },
    header: /renamed max_tokens to max_completion_tokens/,
  },
  {
    name: 'OpenAI: temperature on a reasoning model dropped',
    fake: () => h.gw.primary,
    send: () => chat('oa/gpt-test', { temperature: 0.2 }),
    refusal: openaiError(
      "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
      'temperature',
      'unsupported_value',
    ),
    before: (b) => expect(b.temperature).toBe(0.2),
    after: (b) => expect(b).not.toHaveProperty('temperature'),
    header: /dropped temperature/,
  },
  {
    name: 'OpenAI: reasoning_effort clamped to the highest level the error lists',
    fake: () => h.gw.primary,
    send: () => chat('oa/gpt-test', { reasoning_effort: 'xhigh' }),
    refusal: openaiError(
      "Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', and 'high'.",
      'reasoning_effort',
      'unsupported_value',
    ),
    before: (b) => expect(b.reasoning_effort).toBe('xhigh'),
    after: (b) => expect(b.reasoning_effort).toBe('high'),
    header: /lowered reasoning_effort from xhigh to high/,
  },
  {
    name: 'Anthropic: top_p dropped when temperature is set too',
    fake: () => h.gw.primary,
    send: () => messages({ temperature: 0.5, top_p: 0.9 }),
    refusal: anthropicError(
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
    ),
    before: (b) => expect(b.top_p).toBe(0.9),
    after: (b) => {
      expect(b).not.toHaveProperty('top_p');
      expect(b.temperature).toBe(0.5);
    },
    header: /dropped top_p/,
  },
  {
    name: 'Anthropic: max_tokens clamped to the maximum the error states',
    fake: () => h.gw.primary,
    send: () => messages({ max_tokens: 100000 }),
    refusal: anthropicError(
      'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-test',
    ),
    before: (b) => expect(b.max_tokens).toBe(100000),
    after: (b) => expect(b.max_tokens).toBe(64000),
    header: /clamped max_tokens from 100000 to 64000/,
  },
  {
    name: 'Anthropic: a thinking budget below the minimum raised to it',
    fake: () => h.gw.primary,
    send: () => messages({ thinking: { type: 'enabled', budget_tokens: 500 } }),
    refusal: anthropicError(
      'thinking.budget_tokens: Input should be greater than or equal to 1024',
    ),
    before: (b) => expect(b.thinking).toEqual({ type: 'enabled', budget_tokens: 500 }),
    after: (b) => expect(b.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 }),
    header: /clamped thinking\.budget_tokens from 500 to 1024/,
  },
  {
    name: 'OpenAI-compatible (Groq): parallel_tool_calls dropped',
    fake: () => h.gw.backup,
    send: () => chat('oa2/gpt-backup', { parallel_tool_calls: false }),
    refusal: groqError(
      "property 'parallel_tool_calls' is unsupported, did you mean 'tool_choice'?",
    ),
    before: (b) => expect(b.parallel_tool_calls).toBe(false),
    after: (b) => expect(b).not.toHaveProperty('parallel_tool_calls'),
    header: /dropped parallel_tool_calls/,
  },
  {
    name: 'OpenAI-compatible (Groq): reasoning_effort lowered a level when no list is given',
    fake: () => h.gw.backup,
    send: () => chat('oa2/gpt-backup', { reasoning_effort: 'xhigh' }),
    refusal: groqError('`reasoning_effort` must be one of the levels this model supports'),
    before: (b) => expect(b.reasoning_effort).toBe('xhigh'),
    after: (b) => expect(b.reasoning_effort).toBe('high'),
    header: /lowered reasoning_effort from xhigh to high/,
  },
  {
    name: 'OpenAI-compatible (Groq): max_tokens clamped to the stated maximum',
    fake: () => h.gw.backup,
    send: () => chat('oa2/gpt-backup', { max_tokens: 50000 }),
    refusal: groqError(
      '`max_tokens` must be less than or equal to `8192`, the maximum value for `max_tokens` is less than the `context_window` for this model',
    ),
    before: (b) => expect(b.max_tokens).toBe(50000),
    after: (b) => expect(b.max_tokens).toBe(8192),
    header: /clamped max_tokens from 50000 to 8192/,
  },
];

describe('a refused shape is repaired once, remembered, and sent right the next time', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const fake = c.fake();
      fake.script(c.refusal, {});
      const first = await c.send();
      expect(first.status).toBe(200);
      expect(first.headers.get('x-breakwater-decision')).toMatch(c.header);
      expect(first.headers.get('x-breakwater-decision')).toMatch(/sent again/);
      const [refused, corrected] = bodies(fake);
      expect(bodies(fake)).toHaveLength(2);
      c.before(refused);
      c.after(corrected);
      expect(h.events.filter((e) => e.type === 'shape.repaired')).toHaveLength(1);

      // The next request is sent corrected at once.
      const second = await c.send();
      expect(second.status).toBe(200);
      expect(second.headers.get('x-breakwater-decision')).toMatch(/sent with learnt fixes/);
      expect(bodies(fake)).toHaveLength(3);
      c.after(bodies(fake)[2]);
      // No cooldown, no breaker failure: a repaired request is one successful attempt.
      expect(h.events.some((e) => e.type === 'connection.cooldown')).toBe(false);

      // And after a restart, still corrected at once.
      await h.gw.restart();
      h.listen();
      expect((await c.send()).status).toBe(200);
      expect(bodies(fake)).toHaveLength(4);
      c.after(bodies(fake)[3]);
    });
  }
});

describe('learnt fixes', () => {
  it('survive a restart, are listed, and can be cleared', async () => {
    h.gw.primary.script(
      openaiError(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'max_tokens',
        'unsupported_parameter',
      ),
      {},
    );
    expect((await chat('oa/gpt-test', { max_tokens: 300 })).status).toBe(200);
    await h.gw.restart();
    h.listen();
    expect(await learnt()).toMatchObject([
      {
        provider: 'oa',
        model: 'gpt-test',
        param: 'max_tokens',
        mechanism: 'parameter',
        fix: 'rename max_tokens to max_completion_tokens',
        cause: expect.stringContaining('Unsupported parameter'),
      },
    ]);
    // The dashboard reads them from the snapshot.
    const state = (await (await h.gw.admin('/api/state')).json()) as Snapshot;
    expect(state.learnedFixes).toMatchObject([{ provider: 'oa', param: 'max_tokens' }]);
    h.gw.primary.reset();
    expect((await chat('oa/gpt-test', { max_tokens: 300 })).status).toBe(200);
    expect(bodies(h.gw.primary)).toHaveLength(1);
    expect(bodies(h.gw.primary)[0].max_completion_tokens).toBe(300);

    h.events.length = 0;
    const cleared = await h.gw.admin('/api/resilience/learned-fixes?provider=oa&model=gpt-test', {
      method: 'DELETE',
    });
    expect(await cleared.json()).toEqual({ cleared: 1 });
    expect(await learnt()).toEqual([]);
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'shape.forgotten',
        provider: 'oa',
        model: 'gpt-test',
        count: 1,
      }),
    );
    h.gw.primary.reset();
    await chat('oa/gpt-test', { max_tokens: 300 });
    expect(bodies(h.gw.primary)[0].max_tokens).toBe(300);
  });

  it('an unknown 400 is relayed unchanged after one request', async () => {
    h.gw.primary.script(
      openaiError("Invalid 'messages[0].content': string too long.", 'messages[0].content', 'x'),
    );
    const res = await chat('oa/gpt-test', { temperature: 0.2 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /string too long/,
    );
    expect(bodies(h.gw.primary)).toHaveLength(1);
    expect(await learnt()).toEqual([]);
  });

  it('switched off, the 400 is relayed and nothing is learnt', async () => {
    h.gw.engine.admin.updateSettings({ 'shapeRepair.parameterLearning': false });
    h.gw.primary.script(
      openaiError(
        "Unsupported parameter: 'temperature' is not supported with this model.",
        'temperature',
        'unsupported_parameter',
      ),
    );
    const res = await chat('oa/gpt-test', { temperature: 0.2 });
    expect(res.status).toBe(400);
    expect(bodies(h.gw.primary)).toHaveLength(1);
    expect(await learnt()).toEqual([]);
  });

  it('effort without a list of levels: one level lower each time, at most two retries', async () => {
    const refusal = openaiError(
      "Invalid value for 'reasoning_effort': this model does not support this effort.",
      'reasoning_effort',
      'invalid_value',
    );
    h.gw.primary.script(refusal, refusal, refusal, {});
    const res = await chat('oa/gpt-test', { reasoning_effort: 'xhigh' });
    expect(res.status).toBe(400);
    expect(bodies(h.gw.primary).map((b) => b.reasoning_effort)).toEqual([
      'xhigh',
      'high',
      'medium',
    ]);
  });
});
