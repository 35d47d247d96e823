import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, ImportReport, ProviderView } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

// A stored key belongs to the URL it was stored for. An import whose provider has a preset's id
// (LiteLLM's `openai/...` is the `openai` preset) but another URL must not move that provider,
// and a save that moves a provider must not take its stored keys along unless they are given.
function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'openai',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'openai-1', apiKey: OPENAI_KEY }],
        models: ['gpt-test'],
      },
    ],
    combos: [{ name: 'coder', strategy: 'priority', targets: ['openai/gpt-test'] }],
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config: config });
});
afterAll(async () => {
  await gw?.close();
});
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
});

const post = (path: string, body: unknown) =>
  gw.admin(path, { method: 'POST', body: JSON.stringify(body) });
const providers = () => gw.engine.admin.listProviders() as ProviderView[];
const bearerOf = (f: FakeUpstream) => f.requests.map((r) => String(r.headers.authorization ?? ''));

async function chat(model: string): Promise<number> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('an import never pairs a stored key with another URL', () => {
  it('imports a LiteLLM deployment of an existing preset at another api_base as a new provider', async () => {
    const yaml = [
      'model_list:',
      '  - model_name: elsewhere',
      '    litellm_params:',
      '      model: openai/gpt-test',
      `      api_base: ${gw.backup.url}/v1`,
      '',
    ].join('\n');
    const res = await post('/api/import', { tool: 'litellm', text: yaml });
    expect(res.status).toBe(200);
    const report = (await res.json()) as ImportReport;
    expect(report.providers).toEqual(['openai-2']);
    expect(report.imported.join('\n')).toMatch(/openai.*another URL.*openai-2/);

    const byId = Object.fromEntries(providers().map((p) => [p.id, p]));
    expect(byId.openai!.baseUrl).toBe(`${gw.primary.url}/v1`);
    expect(byId['openai-2']!.baseUrl).toBe(`${gw.backup.url}/v1`);
    expect(byId['openai-2']!.connections.map((c) => c.id)).toEqual(['openai-2-1']);

    await chat('elsewhere');
    await chat('coder');
    expect(bearerOf(gw.backup).join('\n')).not.toContain(OPENAI_KEY);
    expect(bearerOf(gw.primary)).toContain(`Bearer ${OPENAI_KEY}`);
  });

  it('still replaces a provider imported at the URL it already has, keeping its key', async () => {
    const yaml = `model_list:\n  - model_name: same\n    litellm_params:\n      model: openai/gpt-test\n      api_base: ${gw.primary.url}/v1\n`;
    const res = await post('/api/import', { tool: 'litellm', text: yaml });
    expect(((await res.json()) as ImportReport).providers).toEqual(['openai']);
    expect(await chat('same')).toBe(200);
    expect(bearerOf(gw.primary)).toContain(`Bearer ${OPENAI_KEY}`);
  });
});

describe('saving a provider at another URL (the setup wizard, the API)', () => {
  it('refuses connections that would keep a key stored for the old URL', async () => {
    const res = await post('/api/providers', {
      id: 'openai',
      format: 'openai',
      baseUrl: `${gw.backup.url}/v1`,
      authClass: 'api_key',
      connections: [{ id: 'openai-1' }],
      models: ['gpt-test'],
    });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/openai-1.*key/);
    expect(body.error.message).not.toContain(OPENAI_KEY);
    expect(providers().find((p) => p.id === 'openai')!.baseUrl).toBe(`${gw.primary.url}/v1`);
    await chat('coder');
    expect(gw.backup.requests).toHaveLength(0);
  });

  it('accepts the move when each connection is given its key again', async () => {
    const res = await post('/api/providers', {
      id: 'openai',
      format: 'openai',
      baseUrl: `${gw.backup.url}/v1`,
      authClass: 'api_key',
      connections: [{ id: 'openai-1', apiKeyEnv: 'SOME_OTHER_KEY' }],
      models: ['gpt-test'],
    });
    expect(res.status).toBe(201);
  });
});

describe('a hostile import file through the admin API', () => {
  it.each([
    [
      'litellm',
      `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nmodel_list: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
    ],
    [
      'omniroute',
      '{"providerConnections": [null, {"provider": null, "authType": "apikey", "apiKey": 5}]}',
    ],
    ['cc-switch', `{"claude": ${'['.repeat(100_000)}}`],
    ['claude-code-router', '{"Providers": [{"api_key": sk-live-abcdef}]}'],
  ])('%s: answers 400 import_refused or 200, never a 500', async (tool, text) => {
    const res = await post('/api/import', { tool, text, dryRun: true });
    expect([200, 400]).toContain(res.status);
    const body = await res.text();
    if (res.status === 400) expect(JSON.parse(body).error.code).toBe('import_refused');
    expect(body).not.toMatch(/sk-live|TypeError/);
  });
});
