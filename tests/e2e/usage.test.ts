// The Usage page in a real browser (Debian Chromium driven by playwright-core) against the
// headless server's `/ui`: a chart and the keys table drawn from real requests through the
// gateway. Skips, saying so, only where /usr/bin/chromium is absent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/main/engine/engine';
import type { CreatedGatewayKey } from '../../src/shared/contract';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { captureLogger, standardConfig } from '../support/gateway';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.BREAKWATER_E2E_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'tests', 'e2e', 'artifacts');
const skipReason = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM} (install Debian's chromium: apt-get install -y chromium)`;

describe.skipIf(skipReason !== null)('the Usage page at /ui', () => {
  let up: FakeUpstream;
  let dataDir: string;
  let engine: Engine;
  let base: string;
  let browser: Browser;
  let page: Page;

  const admin = async (path: string, body?: unknown) =>
    (
      await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${engine.adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    ).json();

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    up = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'bw-e2e-usage-'));
    const config = standardConfig(up, up);
    config.providers!.find((p) => p.id === 'oa')!.models = [
      { id: 'gpt-test', price: { input: 2, output: 8 } },
    ];
    engine = createEngine({
      config,
      dataDir,
      port: 0,
      log: captureLogger(),
      env: {},
      uiDir: join(ROOT, 'out', 'renderer'),
    });
    base = (await engine.listen()).baseUrl;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop({ graceMs: 0 });
    await up?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('draws the chart and the keys table from real requests', async () => {
    const key = (await admin('/api/keys', {
      name: 'agent-e2e',
      limits: { usdPerDay: 1 },
    })) as CreatedGatewayKey;
    for (const usage of [
      { input: 1200, output: 300 },
      { input: 800, output: 100 },
    ]) {
      up.script({ usage });
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.goto(`${base}/ui/#token=${encodeURIComponent(engine.adminToken)}`);
    await page
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('link', { name: /^Usage/ })
      .click();
    // uPlot draws on a canvas, with a legend naming the series.
    const chart = page.getByTestId('usage-chart');
    await chart.locator('canvas').waitFor({ timeout: 10_000 });
    await expect.poll(() => chart.locator('.u-legend').textContent()).toContain('gpt-test');
    // Totals by model: 2 requests, 2000 input and 400 output tokens.
    const totals = page.getByTestId('usage-totals');
    await expect.poll(() => totals.locator('tbody tr').first().textContent()).toContain('gpt-test');
    const cells = await totals.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['gpt-test', '2', '2000', '400']);
    // The keys table: the key, its spend against its budget (0.0072 USD of 1 USD today).
    const keys = page.getByTestId('usage-keys');
    await expect.poll(() => keys.textContent()).toContain('agent-e2e');
    expect(await keys.textContent()).toContain('$0.0072/$1.00 today');
    expect(await keys.textContent()).not.toContain(key.key);
    await page.screenshot({ path: join(ARTIFACTS, 'usage.png'), fullPage: true });
  }, 60_000);

  it('draws the provider quota bars from real rate-limit headers, with live reset countdowns', async () => {
    up.script({
      headers: {
        'x-ratelimit-limit-requests': '100',
        'x-ratelimit-remaining-requests': '42',
        'x-ratelimit-reset-requests': '6m0s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': '9000',
        'x-ratelimit-reset-tokens': '50s',
      },
    });
    // The page is open already: the answer's event makes the dashboard read the snapshot again.
    const key = (await admin('/api/keys', { name: 'quota-e2e' })) as CreatedGatewayKey;
    const ok = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(ok.status).toBe(200);
    const bars = page.getByTestId('quota-bars');
    const requests = bars.getByTestId('quota-oa-1-requests');
    await expect
      .poll(() => requests.textContent(), { timeout: 10_000 })
      .toContain('42 of 100 left');
    expect(await requests.locator('meter').getAttribute('value')).toBe('0.42');
    const tokens = bars.getByTestId('quota-oa-1-tokens');
    expect(await tokens.textContent()).toContain('9000 of 10000 left');
    const countdown = tokens.getByTestId('countdown');
    const first = await countdown.textContent();
    expect(first).toMatch(/^resets in \d+ s$/);
    await expect.poll(() => countdown.textContent(), { timeout: 5000 }).not.toBe(first);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-quotas.png'), fullPage: true });
  }, 60_000);
});
