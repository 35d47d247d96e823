import { describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';
import { anthropicError, openaiError, shapeHarness } from './shape-harness';

// A prompt too long for its target (issue 17): with context editing off, a combo with a
// larger-window target fails over to it; with none larger left, the 400 goes back unchanged.
// Context editing is opt-in globally or per combo (`options.contextEditing`).

/** The standard providers with context windows: oa 128k, an 200k, oa2 400k (gpt-shared 64k). */
function windowsConfig(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  const config = standardConfig(primary, backup);
  const windows: Record<string, Record<string, number>> = {
    oa: { 'gpt-test': 128_000, 'gpt-shared': 128_000 },
    an: { 'claude-test': 200_000 },
    oa2: { 'gpt-backup': 400_000, 'gpt-shared': 64_000 },
  };
  for (const p of config.providers ?? []) {
    p.models = p.models.map((m) => {
      const id = typeof m === 'string' ? m : m.id;
      return { id, contextWindow: windows[p.id]![id]! };
    });
  }
  config.combos = [
    ...(config.combos ?? []),
    { name: 'wide', strategy: 'priority', targets: ['oa/gpt-test', 'oa2/gpt-backup'] },
    { name: 'claude-wide', strategy: 'priority', targets: ['an/claude-test', 'oa2/gpt-backup'] },
    { name: 'narrow', strategy: 'priority', targets: ['oa/gpt-test', 'oa2/gpt-shared'] },
    {
      name: 'trimmed',
      strategy: 'priority',
      targets: ['oa/gpt-test', 'oa2/gpt-backup'],
      options: { contextEditing: true },
    },
    {
      name: 'untrimmed',
      strategy: 'weighted',
      targets: ['oa/gpt-test', { target: 'oa2/gpt-backup', weight: 0 }],
      options: { contextEditing: false },
    },
  ];
  return config;
}

const h = shapeHarness(
  (gw) => gw.engine.admin.updateSettings({ 'shapeRepair.contextEditing': null }),
  windowsConfig,
);

const conversation = [
  { role: 'user', content: 'first' },
  { role: 'assistant', content: 'a1' },
  { role: 'user', content: 'second' },
  { role: 'assistant', content: 'a2' },
  { role: 'user', content: 'latest' },
];

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON.
const bodies = (fake: FakeUpstream): any[] =>
  fake.requests.filter((r) => r.method === 'POST').map((r) => r.body);

function chat(model: string): Promise<Response> {
  return fetch(`${h.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: conversation }),
  });
}

function messages(model: string): Promise<Response> {
  return fetch(`${h.gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 10, messages: conversation }),
  });
}

const OPENAI_TOO_LONG = openaiError(
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 160000 tokens. Please reduce the length of the messages.",
  'messages',
  'context_length_exceeded',
);
// vLLM and other OpenAI-compatible servers: no code, their own sentence.
const COMPATIBLE_TOO_LONG: FakeStep = {
  status: 400,
  body: {
    object: 'error',
    type: 'BadRequestError',
    message:
      "This model's maximum context length is 128000 tokens. However, you requested 150000 tokens (149000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    param: null,
    code: 400,
  },
};

describe('a prompt too long, with context editing off', () => {
  const cases: { name: string; refusal: FakeStep; send: () => Promise<Response>; limit: number }[] =
    [
      { name: 'OpenAI', refusal: OPENAI_TOO_LONG, send: () => chat('wide'), limit: 128000 },
      {
        name: 'Anthropic',
        refusal: anthropicError('prompt is too long: 250000 tokens > 200000 maximum'),
        send: () => messages('claude-wide'),
        limit: 200000,
      },
      {
        name: 'OpenAI-compatible (vLLM)',
        refusal: COMPATIBLE_TOO_LONG,
        send: () => chat('wide'),
        limit: 128000,
      },
    ];
  for (const c of cases) {
    it(`${c.name}: fails over to the combo's larger-window target, whole`, async () => {
      h.gw.primary.script(c.refusal);
      const res = await c.send();
      expect(res.status).toBe(200);
      const decision = res.headers.get('x-breakwater-decision') ?? '';
      expect(decision).toMatch(
        new RegExp(
          `prompt too long for its ${c.limit}-token context window; failing over to a larger one`,
        ),
      );
      expect(decision).toMatch(/oa2\/gpt-backup@oa2-1 served/);
      expect(bodies(h.gw.primary)).toHaveLength(1);
      expect(bodies(h.gw.backup)).toHaveLength(1);
      // The larger target gets the conversation as the client sent it.
      expect(bodies(h.gw.backup)[0].messages).toHaveLength(conversation.length);
      expect(h.events).toContainEqual(
        expect.objectContaining({ type: 'shape.failover', mechanism: 'context' }),
      );
    });
  }

  it('with no larger target left, the 400 goes to the client unchanged, after one request', async () => {
    h.gw.primary.script(OPENAI_TOO_LONG);
    const res = await chat('narrow');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(OPENAI_TOO_LONG.body);
    expect(bodies(h.gw.primary)).toHaveLength(1);
    expect(bodies(h.gw.backup)).toHaveLength(0);
    expect(h.events.some((e) => e.type === 'shape.failover')).toBe(false);
  });

  it('a larger target later in the list is reached past smaller ones, which are skipped', async () => {
    h.gw.primary.script(OPENAI_TOO_LONG);
    await h.gw.restart({
      ...windowsConfig(h.gw.primary, h.gw.backup),
      combos: [
        {
          name: 'three',
          strategy: 'priority',
          targets: ['oa/gpt-test', 'oa2/gpt-shared', 'oa2/gpt-backup'],
        },
      ],
    });
    const res = await chat('three');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-decision')).toMatch(
      /oa2\/gpt-shared@oa2-1 skipped \(context_window\).*oa2\/gpt-backup@oa2-1 served/,
    );
    expect(bodies(h.gw.backup).map((b) => b.model)).toEqual(['gpt-backup']);
    await h.gw.restart(windowsConfig(h.gw.primary, h.gw.backup));
    h.listen();
  });
});

describe('context editing per combo', () => {
  it('a combo that opts in trims its requests while the global setting is off', async () => {
    h.gw.primary.script(OPENAI_TOO_LONG, {});
    const res = await chat('trimmed');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-decision')).toMatch(/removed 1 oldest turn, sent again/);
    expect(bodies(h.gw.primary)).toHaveLength(2);
    expect(bodies(h.gw.primary)[1].messages.map((m: { content: string }) => m.content)).toEqual([
      'first',
      'a1',
      'latest',
    ]);
    expect(bodies(h.gw.backup)).toHaveLength(0);
  });

  it('a combo that opts out fails over instead, while the global setting is on', async () => {
    h.gw.engine.admin.updateSettings({ 'shapeRepair.contextEditing': true });
    h.gw.primary.script(OPENAI_TOO_LONG, {});
    const res = await chat('untrimmed');
    expect(res.status).toBe(200);
    expect(bodies(h.gw.primary)).toHaveLength(1);
    expect(bodies(h.gw.backup)[0].messages).toHaveLength(conversation.length);
    // Another combo follows the global setting: trimmed on the same target.
    h.gw.primary.reset();
    h.gw.primary.script(OPENAI_TOO_LONG, {});
    expect((await chat('wide')).status).toBe(200);
    expect(bodies(h.gw.primary)).toHaveLength(2);
    expect(bodies(h.gw.primary)[1].messages).toHaveLength(3);
  });

  it('the config refuses a contextEditing that is not a boolean, naming the field', async () => {
    const res = await h.gw.admin('/api/combos', {
      method: 'POST',
      body: JSON.stringify({
        name: 'bad',
        strategy: 'priority',
        targets: ['oa/gpt-test'],
        options: { contextEditing: 'on' },
      }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/options\.contextEditing.*true or false/);
  });
});
