import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_DOWN, STATUSLINE_DEFAULT_URL } from '../../src/main/cli-statusline';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../src/main/engine/engine';
import type { SessionSummary } from '../../src/shared/contract';
import { standardConfig, startGateway, type TestGateway } from '../support/gateway';

// `breakwater statusline` (issue 33) as Claude Code runs it: a fresh process per message, JSON
// on stdin, one line out. Bundled from its entry as the build does (out/main/statusline.js), so
// the timing is the command's own and not a TypeScript loader's.
const ROOT = resolve(__dirname, '../..');
const SESSION = '6f1d3c1e-2b7a-4b8e-9d1f-0a1b2c3d4e5f';
let gw: TestGateway;
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bw-statusline-'));
  bundle = join(dir, 'statusline.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/main/statusline.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
  gw = await startGateway({
    config: (p, b) => {
      const config = standardConfig(p, b);
      const an = config.providers!.find((x) => x.id === 'an')!;
      an.models = [{ id: 'claude-test', price: { input: 3, output: 15 } }];
      return config;
    },
  });
});
afterAll(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(
  stdin: string | Buffer,
  args: string[] = ['--url', gw.url],
): Promise<{ out: string; code: number | null; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [bundle, 'statusline', ...args], {
    env: { PATH: process.env.PATH, BREAKWATER_ADMIN_TOKEN: gw.engine.adminToken },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  return new Promise((done) =>
    child.once('exit', (code) => done({ out, code, ms: Date.now() - started })),
  );
}

const claudeCode = (session: unknown) =>
  JSON.stringify({
    hook_event_name: 'Status',
    session_id: session,
    model: { id: 'claude-test', display_name: 'Claude Test' },
    workspace: { current_dir: '/tmp/project', project_dir: '/tmp/project' },
  });

async function turn(): Promise<void> {
  gw.primary.script({
    usage: { input: 10_000, output: 2_000 },
    headers: { 'anthropic-ratelimit-unified-5h-utilization': '0.37' },
  });
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'claude',
      max_tokens: 100,
      metadata: { user_id: `user_abc_account_def_session_${SESSION}` },
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

describe('breakwater statusline', () => {
  it('defaults to the gateway address serve uses', () => {
    expect(STATUSLINE_DEFAULT_URL).toBe(`http://${DEFAULT_HOST}:${DEFAULT_PORT}`);
  });

  it('prints the combo, the serving target, the cost and the quota left, in under 200 ms', async () => {
    await turn();
    await turn();
    const summary = (await (await gw.admin(`/api/sessions/${SESSION}`)).json()) as SessionSummary;
    expect(summary).toMatchObject({
      id: SESSION,
      combo: 'claude',
      target: 'an/claude-test',
      connection: 'an-1',
      requests: 2,
      inputTokens: 20_000,
      outputTokens: 4_000,
      quota: { window: '5h', percentLeft: 63 },
    });
    // 2 × (10 000 × $3 + 2 000 × $15) per million tokens.
    expect(summary.costUsd).toBeCloseTo(0.12, 6);
    // The first run warms the disk cache; Claude Code runs it again after every message. The
    // other test files share these two cores, so a run can wait for one of them: the budget is
    // held by the best of up to ten runs (a command that loads the engine takes over a second
    // every time, and still fails).
    await run(claudeCode(SESSION));
    const line = 'claude → an/claude-test · $0.12 · 24.0k tok · 5h 63 % left\n';
    const times: number[] = [];
    while (times.length < 10 && times.every((ms) => ms >= 200)) {
      const r = await run(claudeCode(SESSION));
      expect(r.code).toBe(0);
      // A run that waited past its own 180 ms budget for a core says the gateway is down, as it
      // should: that is a slow run, not a wrong one. Only a run with the line counts as fast.
      expect([line, `${FALLBACK_DOWN}\n`]).toContain(r.out);
      times.push(r.out === line ? r.ms : Number.POSITIVE_INFINITY);
    }
    expect(Math.min(...times)).toBeLessThan(200);
  });

  it('says so in one short line when the gateway is down, and exits 0', async () => {
    const r = await run(claudeCode(SESSION), ['--url', 'http://127.0.0.1:9']);
    expect(r).toMatchObject({ out: `${FALLBACK_DOWN}\n`, code: 0 });
    expect(r.ms).toBeLessThan(1000);
  });

  it('survives hostile input: garbage, null, huge, odd types, an unknown session', async () => {
    for (const input of ['', 'not json {', 'null', '[]', claudeCode(42), claudeCode('x\u0007\n')]) {
      const r = await run(input);
      expect(r.code).toBe(0);
      expect(r.out.split('\n')).toHaveLength(2);
      expect(r.out).toMatch(/^breakwater · /);
    }
    const huge = await run(Buffer.alloc(8 * 1024 * 1024, 'a'));
    expect(huge.code).toBe(0);
    expect(huge.out).toMatch(/^breakwater/);
    const unknown = await run(claudeCode('no-such-session'));
    expect(unknown.out).toBe('breakwater · Claude Test · no turns yet\n');
    expect((await gw.admin('/api/sessions/no-such-session')).status).toBe(404);
    const bad = await run(claudeCode(SESSION), ['--url', 'not a url']);
    expect(bad).toMatchObject({ code: 0 });
  });
});
