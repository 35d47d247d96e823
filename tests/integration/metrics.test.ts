import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

const METRICS_TOKEN = 'metrics-only-token-0123456789';
const promtool = spawnSync('promtool', ['--version']).status === 0;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({ env: { BREAKWATER_METRICS_TOKEN: METRICS_TOKEN } });
  // Some traffic, a failure among it, so every family has samples.
  gw.primary.script({ usage: { input: 40, output: 2 } }, { status: 500 });
  for (const model of ['oa/gpt-test', 'oa/gpt-test']) {
    await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  }
});
afterAll(() => gw.close());

function scrape(token: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/metrics`, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

describe('GET /metrics', () => {
  it('needs the admin token or the metrics token', async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape('wrong-token')).status).toBe(401);
    expect((await scrape(METRICS_TOKEN)).status).toBe(200);
    expect((await scrape(gw.engine.adminToken)).status).toBe(200);
    // The metrics token opens nothing else.
    const admin = await fetch(`${gw.url}/api/state`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(admin.status).toBe(401);
  });

  it('refuses a foreign Origin (a web page must not read it)', async () => {
    const res = await scrape(METRICS_TOKEN, { origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });

  it('counts requests, errors, latency, tokens and state', async () => {
    const res = await scrape(METRICS_TOKEN);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain(
      'breakwater_requests_total{provider="oa",connection="oa-1",code="2xx"} 1',
    );
    expect(text).toMatch(/breakwater_request_errors_total\{class="[a-z_0-9]+"\} 1/);
    expect(text).toContain(
      'breakwater_tokens_total{provider="oa",model="gpt-test",type="input"} 40',
    );
    expect(text).toContain('breakwater_request_duration_seconds_count{provider="oa"} 2');
    expect(text).toContain('breakwater_breaker_state{provider="oa",state="CLOSED"} 1');
    expect(text).toContain('breakwater_connection_in_flight{provider="oa",connection="oa-1"} 0');
  });

  it('exports the size, cap and drops of every bounded map (session pins among them)', async () => {
    gw.primary.script({});
    await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'coder',
        prompt_cache_key: 'sess-metrics',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const text = await (await scrape(METRICS_TOKEN)).text();
    expect(text).toContain('breakwater_bounded_map_entries{map="session_pins"} 1');
    expect(text).toContain('breakwater_bounded_map_capacity{map="session_pins"} 50000');
    for (const map of ['session_pins', 'relay_sessions', 'prompt_prefixes', 'target_stats'])
      for (const reason of ['expired', 'capacity'])
        expect(text).toContain(
          `breakwater_bounded_map_evictions_total{map="${map}",reason="${reason}"} 0`,
        );
  });

  it.skipIf(!promtool)(
    'passes promtool check metrics (skipped where promtool is not installed)',
    async () => {
      const text = await (await scrape(METRICS_TOKEN)).text();
      const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(check.stdout + check.stderr).toBe('');
      expect(check.status).toBe(0);
    },
  );
});
