// The Usage page in a real browser (Debian Chromium driven by playwright-core) against the
// headless server's `/ui`: a chart and the keys table drawn from real requests through the
// gateway. Skips, saying so, only where /usr/bin/chromium is absent.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import type { CreatedGatewayKey } from '../../src/shared/contract';
import {
  ARTIFACTS,
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';

describe.skipIf(skipReason !== null)('the Usage page at /ui', () => {
  let ui: BrowserGateway;
  let up: FakeUpstream;
  let engine: Engine;
  let base: string;
  let page: Page;

  const admin = (path: string, body?: unknown) =>
    ui.admin(path, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'usage',
      viewport: { width: 1200, height: 900 },
      engine: ([u]) => {
        const config = standardConfig(u!, u!);
        config.providers!.find((p) => p.id === 'oa')!.models = [
          { id: 'gpt-test', price: { input: 2, output: 8 } },
        ];
        return { config };
      },
    });
    ({ engine, base, page } = ui);
    [up] = ui.upstreams as [FakeUpstream];
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

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
      const res = await ui.chat('oa/gpt-test', { authorization: `Bearer ${key.key}` });
      expect(res.status).toBe(200);
    }
    await page.goto(dashboardLink(base, engine.adminToken));
    await ui.go('Usage');
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
    const ok = await ui.chat('oa/gpt-test', { authorization: `Bearer ${key.key}` });
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
