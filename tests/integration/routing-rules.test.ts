// Routing rules and model capabilities through the real gateway: Claude Code's kinds of request
// (background Haiku, thinking, long context, images, web search) each go where a rule sends them,
// and a target known to lack what a request needs is skipped without being called.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine';
import type { BreakwaterConfig, RuleConfig } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import {
  ANTHROPIC_KEY,
  captureLogger,
  OPENAI_KEY_2,
  startGateway,
  type TestGateway,
} from '../support/gateway';

const RULES: RuleConfig[] = [
  { name: 'background', when: { model: 'claude-*HAIKU*' }, use: 'cheap' },
  { name: 'long-context', when: { minInputTokens: 60_000 }, use: 'wide' },
  { name: 'think', when: { thinking: true }, use: 'deep' },
  { name: 'image', when: { images: true, client: 'anthropic' }, use: 'an/eyes' },
  { name: 'search', when: { webSearch: true }, use: 'searcher' },
  // The catch-all of Claude Code's requests; Chat clients (the capability tests) pass through.
  { name: 'main', when: { client: 'anthropic' }, use: 'an/claude-sonnet-4-5' },
];

function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: ANTHROPIC_KEY }],
        models: ['claude-sonnet-4-5', 'small', 'big', 'thinker', 'eyes', 'finder'],
      },
      {
        id: 'txt',
        format: 'openai',
        baseUrl: `${backup.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'txt-1', apiKey: OPENAI_KEY_2 }],
        models: [
          { id: 'text-only', capabilities: ['tools'] },
          { id: 'seeing', capabilities: ['vision', 'tools'] },
        ],
      },
    ],
    combos: [
      { name: 'cheap', strategy: 'priority', targets: ['an/small'] },
      { name: 'wide', strategy: 'priority', targets: ['an/big'] },
      { name: 'deep', strategy: 'priority', targets: ['an/thinker'] },
      { name: 'searcher', strategy: 'priority', targets: ['an/finder'] },
      { name: 'mixed', strategy: 'priority', targets: ['txt/text-only', 'txt/seeing'] },
      { name: 'blind', strategy: 'priority', targets: ['txt/text-only'] },
    ],
    rules: RULES,
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
});

const decision = (res: Response) =>
  decodeURIComponent(res.headers.get('x-breakwater-decision') ?? '');

function messages(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

function chat(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const imageMessage = [
  {
    role: 'user',
    content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
      { type: 'text', text: 'what is this?' },
    ],
  },
];

describe('routing rules', () => {
  it.each([
    [
      'a Claude Code Haiku request',
      { model: 'claude-haiku-4-5-20251001' },
      'background',
      'cheap',
      'small',
    ],
    [
      'a Sonnet request with thinking',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
      },
      'think',
      'deep',
      'thinker',
    ],
    [
      'a request over 60 000 estimated tokens',
      { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'word '.repeat(50_000) }] },
      'long-context',
      'wide',
      'big',
    ],
    [
      'a request with an image',
      { model: 'claude-sonnet-4-5', messages: imageMessage },
      'image',
      'an/eyes',
      'eyes',
    ],
    [
      'a request with the web search tool',
      {
        model: 'claude-sonnet-4-5',
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      },
      'search',
      'searcher',
      'finder',
    ],
    [
      'anything else',
      { model: 'claude-sonnet-4-5' },
      'main',
      'an/claude-sonnet-4-5',
      'claude-sonnet-4-5',
    ],
  ])('sends %s where its rule says', async (_what, body, rule, use, upstreamModel) => {
    const res = await messages(body);
    expect(res.status).toBe(200);
    expect(decision(res).startsWith(`rule ${rule} → ${use};`)).toBe(true);
    expect(gw.primary.requests.at(-1)?.body.model).toBe(upstreamModel);
  });

  // Read from each format's own member, in a small body (parsed whole) and in one past 96 KB
  // (scanned, with the member last); without such a member no rule sees thinking.
  describe.each([
    ['small', ''],
    ['large', 'filler '.repeat(16_000)],
  ])('thinking in a %s body', (_size, filler) => {
    const ask = (path: string, body: Record<string, unknown>) =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const chatTurn = [{ role: 'user', content: `hi ${filler}` }];
    it.each([
      [
        'Chat reasoning_effort',
        '/v1/chat/completions',
        { model: 'txt/seeing', messages: chatTurn, reasoning_effort: 'high' },
      ],
      [
        'Responses reasoning.effort',
        '/v1/responses',
        { model: 'txt/seeing', input: `hi ${filler}`, reasoning: { effort: 'high' } },
      ],
      [
        'Gemini thinkingConfig',
        '/v1beta/models/txt/seeing:generateContent',
        {
          contents: [{ role: 'user', parts: [{ text: `hi ${filler}` }] }],
          generationConfig: { thinkingConfig: { thinkingBudget: 2048 } },
        },
      ],
    ])('%s takes the thinking rule; the same without it does not', async (_name, path, body) => {
      const res = await ask(path, body);
      expect(res.status).toBe(200);
      expect(decision(res).startsWith('rule think → deep;')).toBe(true);
      const plain = Object.fromEntries(
        Object.entries(body).filter(
          ([k]) => !['reasoning_effort', 'reasoning', 'generationConfig'].includes(k),
        ),
      );
      const off = await ask(path, plain);
      expect(off.status).toBe(200);
      expect(decision(off)).not.toContain('rule think');
    });
  });

  it('says nothing extra when no rule matches', async () => {
    const put = await gw.admin('/api/rules', {
      method: 'PUT',
      body: JSON.stringify({ rules: [RULES[0]] }),
    });
    expect(put.status).toBe(200);
    try {
      const res = await messages({ model: 'an/claude-sonnet-4-5' });
      expect(res.status).toBe(200);
      expect(decision(res)).not.toMatch(/rule/);
    } finally {
      await gw.admin('/api/rules', { method: 'PUT', body: JSON.stringify({ rules: RULES }) });
    }
  });
});

describe('capabilities', () => {
  const chatImage = {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
        ],
      },
    ],
  };

  it('skips a text-only target for an image request without calling it, and says why', async () => {
    const res = await chat({ model: 'mixed', ...chatImage });
    expect(res.status).toBe(200);
    expect(decision(res)).toMatch(/combo mixed \(priority\); skipped txt\/text-only: no vision; /);
    expect(gw.backup.requests.map((r) => r.body.model)).toEqual(['seeing']);
  });

  it('leaves the text-only target first for a text request', async () => {
    const res = await chat({ model: 'mixed', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(decision(res)).not.toMatch(/skipped/);
    expect(gw.backup.requests.map((r) => r.body.model)).toEqual(['text-only']);
  });

  it('answers 400 no_capable_target in the client format when no target can see', async () => {
    const res = await chat({ model: 'blind', ...chatImage });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string; needs: string[] };
    };
    expect(body.error.code).toBe('no_capable_target');
    expect(body.error.needs).toEqual(['vision']);
    expect(body.error.message).toMatch(/needs vision/);
    expect(gw.backup.requests).toHaveLength(0);
  });
});

describe("capabilities and the gateway's web search", () => {
  const rules = (list: RuleConfig[]) =>
    gw.admin('/api/rules', { method: 'PUT', body: JSON.stringify({ rules: list }) });

  it('a search tool keeps a model that lacks webSearch but calls functions; Chat web_search_options do not', async () => {
    expect((await rules([])).status).toBe(200);
    try {
      const res = await messages({
        model: 'blind',
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      });
      expect(res.status).toBe(200);
      expect(decision(res)).not.toMatch(/skipped/);
      expect(gw.backup.requests.at(-1)?.body.model).toBe('text-only');
      const option = await chat({
        model: 'blind',
        web_search_options: {},
        messages: [{ role: 'user', content: 'news?' }],
      });
      expect(option.status).toBe(400);
      const body = (await option.json()) as { error: { code: string; needs: string[] } };
      expect(body.error).toMatchObject({ code: 'no_capable_target', needs: ['webSearch'] });
    } finally {
      expect((await rules(RULES)).status).toBe(200);
    }
  });
});

describe('/api/rules', () => {
  const put = (body: unknown) =>
    gw.admin('/api/rules', { method: 'PUT', body: JSON.stringify(body) });

  it('replaces the rules for the next request, and keeps them across a restart', async () => {
    const next: RuleConfig[] = [{ name: 'all-cheap', when: { client: 'anthropic' }, use: 'cheap' }];
    expect((await put({ rules: next })).status).toBe(200);
    const res = await messages({ model: 'claude-sonnet-4-5' });
    expect(decision(res).startsWith('rule all-cheap → cheap;')).toBe(true);
    expect(gw.primary.requests.at(-1)?.body.model).toBe('small');

    await gw.restart();
    const listed = (await (await gw.admin('/api/rules')).json()) as { rules: RuleConfig[] };
    expect(listed.rules).toEqual(next);
    const after = await messages({ model: 'claude-sonnet-4-5' });
    expect(decision(after).startsWith('rule all-cheap → cheap;')).toBe(true);
    expect((await put({ rules: RULES })).status).toBe(200);
  });

  it('offers the Claude Code rule set for the providers as they are, and writes nothing', async () => {
    const offer = async () =>
      ((await (await gw.admin('/api/rules/claude-code')).json()) as { rules: RuleConfig[] }).rules;
    // Of the models here only claude-sonnet-4-5 has a known price and window.
    expect(await offer()).toEqual([
      { name: 'background', when: { model: 'claude-*haiku*' }, use: 'an/claude-sonnet-4-5' },
      { name: 'long-context', when: { minInputTokens: 60_000 }, use: 'an/claude-sonnet-4-5' },
    ]);
    const saved = await gw.admin('/api/providers', {
      method: 'POST',
      body: JSON.stringify({
        id: 'cheapo',
        format: 'anthropic',
        baseUrl: gw.primary.url,
        authClass: 'api_key',
        models: ['claude-haiku-4-5'],
        enabled: true,
      }),
    });
    expect(saved.status).toBe(201);
    try {
      expect((await offer())[0]).toEqual({
        name: 'background',
        when: { model: 'claude-*haiku*' },
        use: 'cheapo/claude-haiku-4-5',
      });
      const listed = (await (await gw.admin('/api/rules')).json()) as { rules: RuleConfig[] };
      expect(listed.rules).toEqual(RULES);
    } finally {
      await gw.admin('/api/providers/cheapo', { method: 'DELETE' });
    }
  });

  it('refuses a rule whose use names nothing, with its field, and keeps the old rules', async () => {
    for (const use of ['nope', 'ghost/model', 'an/not-listed']) {
      const res = await put({ rules: [RULES[0], { name: 'bad', when: {}, use }] });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { field: string } };
      expect(body.error.field).toBe('rules[1].use');
    }
    const listed = (await (await gw.admin('/api/rules')).json()) as { rules: RuleConfig[] };
    expect(listed.rules).toEqual(RULES);
  });

  it.each([
    ['null', null, 'body'],
    ['an array', [], 'body'],
    ['rules null', { rules: null }, 'rules'],
    ['rules a string', { rules: 'all' }, 'rules'],
    ['an unknown top-level field', { rules: [], extra: 1 }, 'extra'],
    [
      'an unknown rule field',
      { rules: [{ name: 'a', when: {}, use: 'cheap', x: 1 }] },
      'rules[0].x',
    ],
    [
      'an unknown condition',
      { rules: [{ name: 'a', when: { colour: 'red' }, use: 'cheap' }] },
      'rules[0].when.colour',
    ],
    [
      'a wrong type',
      { rules: [{ name: 'a', when: { thinking: 'yes' }, use: 'cheap' }] },
      'rules[0].when.thinking',
    ],
    [
      'a negative token bound',
      { rules: [{ name: 'a', when: { minInputTokens: -1 }, use: 'cheap' }] },
      'rules[0].when.minInputTokens',
    ],
    [
      'a deeply nested value',
      { rules: [{ name: 'a', when: { model: nest(500) }, use: 'cheap' }] },
      'rules[0].when.model',
    ],
    [
      'a huge list',
      {
        rules: Array.from({ length: 5000 }, (_, i) => ({ name: `r${i}`, when: {}, use: 'cheap' })),
      },
      'rules',
    ],
    ['a duplicate name', { rules: [RULES[0], RULES[0]] }, 'rules[1].name'],
    ['a missing use', { rules: [{ name: 'a', when: {} }] }, 'rules[0].use'],
  ])('refuses %s with a clear 400', async (_what, body, field) => {
    const res = await put(body);
    expect(res.status).toBe(400);
    const answer = (await res.json()) as {
      error: { code: string; field: string; message: string };
    };
    expect(answer.error.code).toBe('invalid_field');
    expect(answer.error.field).toBe(field);
    expect(answer.error.message.length).toBeGreaterThan(field.length + 2);
  });

  it('tells which rule a request would take and why the earlier ones did not', async () => {
    const res = await gw.admin('/api/rules/test', {
      method: 'POST',
      body: JSON.stringify({
        request: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: imageMessage },
      }),
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      matched: { name: string } | null;
      missed: { name: string; why: string }[];
    };
    expect(result.matched?.name).toBe('image');
    expect(result.missed.map((m) => m.name)).toEqual(['background', 'long-context', 'think']);
    expect(result.missed[0]!.why).toMatch(/not claude-\*HAIKU\*/);
    expect(result.missed[2]!.why).toMatch(/thinking is false/);
  });
});

function nest(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('rules in the config file', () => {
  it('refuses to start when a rule names nothing that exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bw-rules-'));
    try {
      expect(() =>
        createEngine({
          config: { rules: [{ name: 'x', when: {}, use: 'missing-combo' }] },
          dataDir: dir,
          port: 0,
          log: captureLogger(),
          env: {},
        }),
      ).toThrow(/rules\[0\]\.use/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
