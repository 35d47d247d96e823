import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/engine';
import type { AgentConnection } from '../../src/shared/contract';
import { captureLogger, startGateway, type TestGateway } from '../support/gateway';

// `POST /api/agents/{agent}/connect` and `/undo`: the dashboard's Connect button through the
// browser bridge. The admin token is required, the gateway must listen on loopback only, and the
// writer is `breakwater connect`'s, in the HOME the gateway runs with.
let gw: TestGateway;
let home: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bw-agents-home-'));
  gw = await startGateway({ env: { HOME: home } });
});
afterAll(async () => {
  await gw?.close();
  rmSync(home, { recursive: true, force: true });
});

const post = (path: string, body?: unknown) =>
  gw.admin(path, { method: 'POST', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

describe('connecting an agent through the admin API', () => {
  it('needs the admin token', async () => {
    const res = await fetch(`${gw.url}/api/agents/opencode/connect`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });

  it('writes the agent’s file with the combos as models; a second run changes nothing; undo removes it', async () => {
    const file = join(home, '.config', 'opencode', 'opencode.json');
    const res = await post('/api/agents/opencode/connect');
    expect(res.status).toBe(200);
    const r = (await res.json()) as AgentConnection;
    const combos = gw.engine.admin.listCombos().map((c) => c.name);
    expect(r).toMatchObject({ agent: 'opencode', baseUrl: gw.url, models: combos, env: {} });
    expect(r.written).toEqual([file]);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.provider.breakwater.options).toEqual({
      baseURL: `${gw.url}/v1`,
      apiKey: 'breakwater-local',
    });

    const again = (await (await post('/api/agents/opencode/connect')).json()) as AgentConnection;
    expect(again).toMatchObject({ written: [], unchanged: [file] });

    const undo = await post('/api/agents/opencode/undo');
    expect(await undo.json()).toEqual({ agent: 'opencode', restored: [], removed: [file] });
    expect(existsSync(file)).toBe(false);
  });

  it('takes the key and models chosen, and keeps a backup that undo restores byte for byte', async () => {
    const file = join(home, '.qwen', 'settings.json');
    mkdirSync(join(home, '.qwen'), { recursive: true });
    const original = '{"ui":{"theme":"GitHub"}}';
    writeFileSync(file, original);
    const res = await post('/api/agents/qwen-code/connect', { key: 'bw-k-1', models: ['m1'] });
    const r = (await res.json()) as AgentConnection;
    expect(r.backups).toEqual([`${file}.breakwater-backup`]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      ui: { theme: 'GitHub' },
      security: { auth: { apiKey: 'bw-k-1', baseUrl: `${gw.url}/v1` } },
      model: { name: 'm1' },
    });
    await post('/api/agents/qwen-code/undo');
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('refuses a file the agent could not read, and leaves it untouched', async () => {
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(file, '{ "env": ');
    const res = await post('/api/agents/claude-code/connect');
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('agent_config_refused');
    expect(body.error.message).toMatch(/is not valid JSON.*nothing was changed/);
    expect(readFileSync(file, 'utf8')).toBe('{ "env": ');
    expect(existsSync(`${file}.breakwater-backup`)).toBe(false);
  });

  it('answers 404 for an agent it does not know, 400 for a malformed body', async () => {
    const unknown = await post('/api/agents/vim/connect');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
      /one of claude-code, codex, opencode, qwen-code, gemini-cli/,
    );
    expect((await post('/api/agents/codex/connect', { models: 'm1' })).status).toBe(400);
  });
});

describe('a gateway listening beyond loopback', () => {
  it('refuses to write in its home folder, saying why', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bw-agents-lan-'));
    const engine = createEngine({
      config: {
        gateway: { host: '0.0.0.0', apiKeys: [{ name: 'lan', key: 'bw-lan-key-0123456789' }] },
      },
      dataDir: join(root, 'data'),
      port: 0,
      log: captureLogger(),
      env: { HOME: join(root, 'home') },
    });
    try {
      const { port } = await engine.listen();
      const res = await fetch(`http://127.0.0.1:${port}/api/agents/claude-code/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${engine.adminToken}`, host: `0.0.0.0:${port}` },
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.error.code).toBe('not_loopback');
      expect(body.error.message).toMatch(/listens on 0\.0\.0\.0, not on loopback only/);
      expect(existsSync(join(root, 'home'))).toBe(false);
    } finally {
      await engine.stop({ graceMs: 0 });
      rmSync(root, { recursive: true, force: true });
    }
  });
});
