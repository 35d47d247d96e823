import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killCliRuns, listening, runCli } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';

let up: FakeUpstream;
let dir: string;
let configFile: string;

beforeAll(async () => {
  up = await startFakeUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bw-cli-'));
  configFile = join(dir, 'breakwater.json');
  writeFileSync(configFile, JSON.stringify(standardConfig(up, up)));
});
afterEach(killCliRuns);
afterAll(async () => {
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { ...process.env, BREAKWATER_ADMIN_TOKEN: '', ...env });
}

describe('breakwater serve', () => {
  it('prints the listening line, serves, reports status, and on SIGTERM lets in-flight requests finish', async () => {
    const dataDir = join(dir, 'data-1');
    const r = run(['serve', '--config', configFile, '--port', '0', '--data-dir', dataDir]);
    const url = await listening(r);
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);

    const status = run(['status', '--url', url, '--data-dir', dataDir]);
    expect(await status.exited).toBe(0);
    expect(status.stdout()).toContain(`at ${url}`);
    expect(status.stdout()).toContain('oa/oa-1: active');

    up.script({ delayMs: 800 });
    const inFlight = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await up.waitForRequests(1);
    r.child.kill('SIGTERM');
    // The child's own account goes in the failure: a cut here was seen once in CI, not since.
    const res = await inFlight.catch((err: unknown) => {
      throw new Error(`in-flight request failed (${String(err)}); gateway stderr:\n${r.stderr()}`);
    });
    expect(`${res.status} ${await res.clone().text()}`).toMatch(/^200 /);
    expect(await r.exited).toBe(0);
    expect(r.stderr()).toContain('SIGTERM');
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });

  it('refuses a non-loopback host without gateway API keys', async () => {
    const r = run([
      'serve',
      '--config',
      configFile,
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data-2'),
    ]);
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toContain('gateway.apiKeys');
  });

  it('says clearly when the port is in use', async () => {
    const first = run(['serve', '--port', '0', '--data-dir', join(dir, 'data-3')]);
    const url = await listening(first);
    const port = new URL(url).port;
    const second = run(['serve', '--port', port, '--data-dir', join(dir, 'data-4')]);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toContain(`port ${port} is already in use`);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
  });

  it('names the file and field of an invalid config', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        providers: [{ id: 'p', format: 'grpc', baseUrl: 'http://x', connections: [], models: [] }],
      }),
    );
    const r = run(['serve', '--config', bad, '--port', '0', '--data-dir', join(dir, 'data-5')]);
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toContain(`config file ${bad}: providers[0].format`);
  });
});
