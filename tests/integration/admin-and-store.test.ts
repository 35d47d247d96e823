import { statSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminActions, createAdminClient } from '../../src/shared/admin-client';
import type { BridgeResult, EngineEvent, Snapshot } from '../../src/shared/contract';
import {
  ANTHROPIC_KEY,
  eventually,
  OPENAI_KEY,
  OPENAI_KEY_2,
  startGateway,
  type TestGateway,
} from '../support/gateway';

let gw: TestGateway;
const SECRETS = [OPENAI_KEY, OPENAI_KEY_2, ANTHROPIC_KEY];

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

function expectNoSecrets(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

describe('admin API authentication', () => {
  it('refuses requests without the admin token and serves /api/health publicly', async () => {
    expect((await fetch(`${gw.url}/api/state`)).status).toBe(401);
    expect(
      (await fetch(`${gw.url}/api/state`, { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    const health = await fetch(`${gw.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});

describe('the data dir holds secrets', () => {
  it('is private to its owner: directory 0700, database and admin token 0600', () => {
    expect(statSync(gw.dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(gw.dataDir, 'breakwater.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(gw.dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
  });
});

describe('GET /api/state', () => {
  it('returns the Snapshot with every section', async () => {
    const s = (await (await gw.admin('/api/state')).json()) as Snapshot;
    expect(s.gateway.baseUrl).toBe(gw.url);
    expect(s.connections.map((c) => c.id).sort()).toEqual(['an-1', 'oa-1', 'oa2-1']);
    expect(s.connections[0]).toMatchObject({ status: 'active', backoffLevel: 0, inFlight: 0 });
    for (const key of ['breakers', 'lockouts', 'queues', 'leases', 'sessions'] as const) {
      expect(Array.isArray(s[key])).toBe(true);
    }
  });
});

describe('CRUD for providers, connections, combos and settings', () => {
  it('creates a provider with a connection and never returns its secret', async () => {
    const res = await gw.admin('/api/providers', {
      method: 'POST',
      body: JSON.stringify({
        id: 'local',
        format: 'openai',
        baseUrl: `${gw.backup.url}/v1`,
        authClass: 'local',
        models: ['llama-local'],
        connections: [{ id: 'local-1', apiKey: 'sk-local-secret-0123456789' }],
      }),
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('sk-local-secret-0123456789');
    expect(JSON.parse(text).connections[0]).toMatchObject({ id: 'local-1', hasSecret: true });
    const all = await (await gw.admin('/api/providers')).text();
    expect(all).not.toContain('sk-local-secret-0123456789');
    expectNoSecrets(all);
  });

  it('routes to a provider added at run time without restart', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const res = await openai.chat.completions.create({
      model: 'llama-local',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]?.message.content).toBeTruthy();
    expect(gw.backup.requests.at(-1)!.headers.authorization).toBe(
      'Bearer sk-local-secret-0123456789',
    );
  });

  it('adds a connection to a provider, then deletes it', async () => {
    const add = await gw.admin('/api/providers/local/connections', {
      method: 'POST',
      body: JSON.stringify({ id: 'local-2', apiKeyEnv: 'LOCAL_KEY_UNSET', maxConcurrent: 2 }),
    });
    expect(add.status).toBe(201);
    expect(await add.json()).toMatchObject({
      id: 'local-2',
      hasSecret: false,
      maxConcurrent: 2,
      apiKeyEnv: 'LOCAL_KEY_UNSET',
    });
    expect((await gw.admin('/api/connections/local-2', { method: 'DELETE' })).status).toBe(200);
    expect((await gw.admin('/api/connections/local-2', { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps optional fields a save does not mention (a form cannot undo what it does not show)', async () => {
    const base = { format: 'openai', baseUrl: `${gw.backup.url}/v1`, models: ['llama-local'] };
    await gw.admin('/api/providers/local', {
      method: 'PUT',
      body: JSON.stringify({ ...base, enabled: false, timeouts: { idleMs: 5000 } }),
    });
    const saved = await gw.admin('/api/providers/local', {
      method: 'PUT',
      body: JSON.stringify(base),
    });
    expect(await saved.json()).toMatchObject({ enabled: false, timeouts: { idleMs: 5000 } });
    const restored = await gw.admin('/api/providers/local', {
      method: 'PUT',
      body: JSON.stringify({ ...base, enabled: true, timeouts: {} }),
    });
    expect(await restored.json()).toMatchObject({ enabled: true, timeouts: {} });
  });

  it('rejects invalid bodies with the field and the reason', async () => {
    const bad = await gw.admin('/api/providers', {
      method: 'POST',
      body: JSON.stringify({ id: 'x', format: 'openai', baseUrl: 'ftp://nope', models: [] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'invalid_field', field: 'provider.baseUrl' },
    });
    const combo = await gw.admin('/api/combos', {
      method: 'POST',
      body: JSON.stringify({ name: 'broken', strategy: 'priority', targets: ['ghost/model'] }),
    });
    expect(combo.status).toBe(400);
    expect((await combo.json()).error.message).toContain('provider "ghost" does not exist');
    const notJson = await gw.admin('/api/combos', {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const wrongType = await gw.admin('/api/combos', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
  });

  it('creates, replaces and deletes a combo', async () => {
    const created = await gw.admin('/api/combos', {
      method: 'POST',
      body: JSON.stringify({ name: 'fast', strategy: 'priority', targets: ['local/llama-local'] }),
    });
    expect(created.status).toBe(201);
    const replaced = await gw.admin('/api/combos/fast', {
      method: 'PUT',
      body: JSON.stringify({ strategy: 'priority', targets: ['oa/gpt-test', 'local/llama-local'] }),
    });
    expect(await replaced.json()).toMatchObject({
      name: 'fast',
      targets: ['oa/gpt-test', 'local/llama-local'],
    });
    const typo = await gw.admin('/api/combos/fsat', {
      method: 'PUT',
      body: JSON.stringify({ strategy: 'priority', targets: ['oa/gpt-test'] }),
    });
    expect(typo.status).toBe(404);
    const mismatch = await gw.admin('/api/combos/fast', {
      method: 'PUT',
      body: JSON.stringify({ name: 'other', strategy: 'priority', targets: ['oa/gpt-test'] }),
    });
    expect(mismatch.status).toBe(400);
    expect((await gw.admin('/api/combos/fast', { method: 'DELETE' })).status).toBe(200);
    expect(
      ((await (await gw.admin('/api/combos')).json()) as Array<{ name: string }>).map(
        (c) => c.name,
      ),
    ).not.toContain('fast');
  });

  it('validates settings, rejects out-of-range values whole, and reports the source', async () => {
    const bad = await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'timeouts.connectMs': 2000, 'timeouts.idleMs': -1 }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe('timeouts.idleMs');
    const unchanged = (await (await gw.admin('/api/settings')).json()) as Array<{
      key: string;
      value: unknown;
      source: string;
    }>;
    expect(unchanged.find((s) => s.key === 'timeouts.connectMs')).toMatchObject({
      value: 10_000,
      source: 'default',
    });
    const ok = await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'timeouts.connectMs': 2000 }),
    });
    const after = (await ok.json()) as Array<{ key: string; value: unknown; source: string }>;
    expect(after.find((s) => s.key === 'timeouts.connectMs')).toMatchObject({
      value: 2000,
      source: 'saved',
    });
    expect(
      (await gw.admin('/api/settings', { method: 'PATCH', body: JSON.stringify({ nope: 1 }) }))
        .status,
    ).toBe(400);
  });
});

describe('GET /api/events', () => {
  it('streams a snapshot first, then engine events as they happen', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/api/events`, {
      headers: { authorization: `Bearer ${gw.engine.adminToken}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const events: string[] = [];
    const read = (async () => {
      while (!events.some((e) => e.startsWith('event: request.completed'))) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value);
        const parts = buffer.split('\n\n');
        buffer = parts.pop()!;
        events.push(...parts);
      }
    })();
    await eventually(() => events.length > 0);
    expect(events[0]).toMatch(/^event: snapshot\ndata: \{/);
    await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await read;
    controller.abort();
    const completed = events.find((e) => e.startsWith('event: request.completed'))!;
    const event = JSON.parse(completed.slice(completed.indexOf('data: ') + 6)) as EngineEvent;
    expect(event).toMatchObject({
      type: 'request.completed',
      entry: { modelRequested: 'gpt-test', status: 200 },
    });
  });
});

describe('secrets', () => {
  it('never appear in error bodies, the request log or the gateway log, even when the upstream echoes them', async () => {
    gw.resetResilience();
    // The first target rejects the key and echoes it; the fallback fails echoing its own.
    gw.primary.script({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${OPENAI_KEY}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    });
    gw.backup.script({ status: 503, body: `upstream down for key ${OPENAI_KEY_2}` });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'coder', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(503);
    expectNoSecrets(await res.text());
    await eventually(async () => {
      const logs = await (await gw.admin('/api/logs?limit=20')).text();
      return logs.includes('upstream down');
    });
    expectNoSecrets(await (await gw.admin('/api/logs?limit=50')).text());
    expectNoSecrets(await (await gw.admin('/api/state')).text());
    expectNoSecrets(gw.log.lines.join('\n'));
  });
});

describe('restart', () => {
  it('keeps providers, combos, settings and the request log', async () => {
    const before = (await (await gw.admin('/api/logs?limit=1000')).json()) as unknown[];
    expect(before.length).toBeGreaterThan(2);
    await gw.restart();
    const providers = (await (await gw.admin('/api/providers')).json()) as Array<{
      id: string;
      connections: Array<{ hasSecret: boolean }>;
    }>;
    expect(providers.map((p) => p.id)).toEqual(['oa', 'oa2', 'an', 'local']);
    expect(providers.find((p) => p.id === 'local')!.connections[0]!.hasSecret).toBe(true);
    const combos = (await (await gw.admin('/api/combos')).json()) as Array<{ name: string }>;
    expect(combos.map((c) => c.name)).toEqual(['coder', 'claude']);
    const settings = (await (await gw.admin('/api/settings')).json()) as Array<{
      key: string;
      value: unknown;
    }>;
    expect(settings.find((s) => s.key === 'timeouts.connectMs')!.value).toBe(2000);
    const after = (await (await gw.admin('/api/logs?limit=1000')).json()) as unknown[];
    expect(after.length).toBe(before.length);
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const res = await openai.chat.completions.create({
      model: 'llama-local',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]?.message.content).toBeTruthy();
  });
});

describe("the desktop's in-process admin actions", () => {
  it('answer exactly as the HTTP admin API answers the browser', async () => {
    const http = createAdminClient({ baseUrl: gw.url, token: () => gw.engine.adminToken });
    const same = async (call: (a: AdminActions) => Promise<BridgeResult<unknown>>) => {
      const local = await call(gw.engine.actions);
      expect(local).toEqual(await call(http));
      return local;
    };
    const provider = {
      id: 'twin',
      format: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      authClass: 'api_key',
      models: ['m'],
      // Structured clone keeps undefined members; JSON over HTTP drops them.
      note: undefined,
    } as never;
    expect((await same((a) => a.saveProvider(provider))).ok).toBe(true);
    expect(await same((a) => a.deleteProvider('nope'))).toMatchObject({ code: 'not_found' });
    expect(
      await same((a) => a.saveProvider({ id: 'x', format: 'openai', baseUrl: 'ftp://' } as never)),
    ).toMatchObject({ code: 'invalid_field', field: 'provider.baseUrl' });
    expect(
      await same((a) =>
        a.saveCombo({ name: 'broken', strategy: 'priority', targets: ['ghost/model'] }),
      ),
    ).toMatchObject({ ok: false, code: 'invalid_field' });
    expect(await same((a) => a.getLogs(5, { status: 1.5 }))).toMatchObject({
      code: 'invalid_query',
      field: 'status',
    });
    expect(await same((a) => a.updateSettings({ 'timeouts.connectMs': 1 }))).toMatchObject({
      ok: false,
    });
    expect(await same((a) => a.testConnection('nope'))).toMatchObject({ code: 'not_found' });
    expect(await same((a) => a.releaseLease('oa-1'))).toMatchObject({ code: 'not_found' });
    expect(await same((a) => a.resetBreaker('nope'))).toMatchObject({ code: 'not_found' });
    expect(
      await same((a) => a.reenableModel({ provider: 'oa', connection: 'oa-1', model: 'none' })),
    ).toMatchObject({ code: 'not_found' });
    for (const call of [
      (a: AdminActions) => a.listProviders(),
      (a: AdminActions) => a.listCombos(),
      (a: AdminActions) => a.getSettings(),
      (a: AdminActions) => a.getLogs(20, { errorsOnly: true }),
      (a: AdminActions) => a.resetBreaker(),
      (a: AdminActions) => a.clearConnectionState('oa-1'),
      (a: AdminActions) => a.pause(),
      (a: AdminActions) => a.resume(),
    ]) {
      expect((await same(call)).ok).toBe(true);
    }
    expect(await gw.engine.actions.deleteProvider('twin')).toEqual({ ok: true, data: null });
  });
});
