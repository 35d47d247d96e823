// The dashboard in a real browser (Debian Chromium driven by playwright-core) against the
// headless server's `/ui`, the admin API and the fake upstream: the same BridgeApi contract the
// desktop window uses, over HTTP + SSE. Screenshots of each page (light and dark) are written to
// tests/e2e/artifacts/. Skips, saying so, only where /usr/bin/chromium is absent.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import type {
  BreakwaterConfig,
  ProviderView,
  SettingView,
  Snapshot,
} from '../../src/shared/contract';
import {
  ARTIFACTS,
  type BrowserGateway,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';
import { GPT5, GPT5_MINI } from '../support/model-specs';

function title(name: string): string {
  return skipReason ? `${name} (skipped: ${skipReason})` : name;
}

function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: 'sk-e2e-openai-0123456789' }],
        models: ['gpt-test'],
      },
      {
        // `local` providers trip fastest (2 failures, 15 s reset in RESILIENCE.md).
        id: 'loc',
        format: 'openai',
        baseUrl: `${backup.url}/v1`,
        authClass: 'local',
        connections: [{ id: 'loc-1', apiKey: 'sk-e2e-local-0123456789' }],
        models: ['local-model'],
      },
    ],
    combos: [{ name: 'coder', strategy: 'priority', targets: ['oa/gpt-test', 'loc/local-model'] }],
  };
}

describe.skipIf(skipReason !== null)('browser dashboard at /ui', () => {
  let ui: BrowserGateway;
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let engine: Engine;
  let base: string;
  let page: Page;
  let admin: BrowserGateway['admin'];
  let chat: BrowserGateway['chat'];
  let go: BrowserGateway['go'];
  const requestedUrls: string[] = [];

  async function shoot(name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'ui',
      viewport: { width: 1200, height: 860 },
      upstreams: [{}, {}],
      engine: ([p, b]) => ({ config: config(p!, b!) }),
    });
    ({ engine, base, page, admin, chat, go } = ui);
    [primary, backup] = ui.upstreams as [FakeUpstream, FakeUpstream];
    page.on('request', (r) => requestedUrls.push(r.url()));
  }, 120_000);

  afterAll(() => ui?.close(), 30_000);

  it(title('asks for the admin token and refuses a wrong one'), async () => {
    await page.goto(`${base}/ui`);
    await page.getByLabel('Admin token').fill('bwa_not-the-token');
    await page.getByRole('button', { name: 'Open dashboard' }).click();
    await page.getByText('The gateway refused that token.').waitFor({ timeout: 5000 });
    await shoot('signin');
  });

  it(
    title('loads with the token from the link, strips it from the address, and goes live'),
    async () => {
      await page.goto(`${base}/ui/#token=${encodeURIComponent(engine.adminToken)}`);
      await page
        .getByTestId('status')
        .getByText('Running', { exact: true })
        .waitFor({ timeout: 10_000 });
      await page.getByTestId('link-state').getByText('Live').waitFor({ timeout: 5000 });
      expect(page.url()).toBe(`${base}/ui/`);
      expect(await page.evaluate(() => sessionStorage.getItem('breakwater.adminToken'))).toBe(
        engine.adminToken,
      );
      // A request through the proxy shows up without a reload.
      expect((await chat('oa/gpt-test')).status).toBe(200);
      await expect
        .poll(() => page.locator('.count-value').first().textContent(), { timeout: 3000 })
        .toBe('1');
      await shoot('overview');
      // The token never travelled in a URL (the fragment is never sent) nor reached the log.
      for (const url of requestedUrls) expect(url).not.toContain(engine.adminToken);
      for (const line of ui.log.lines) expect(line).not.toContain(engine.adminToken);
    },
  );

  it(title('pauses and resumes the proxy from the overview'), async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page
      .getByTestId('status')
      .getByText('Paused', { exact: true })
      .waitFor({ timeout: 3000 });
    const paused = await chat('oa/gpt-test');
    expect(paused.status).toBe(503);
    expect(((await paused.json()) as { error: { code: string } }).error.code).toBe(
      'gateway_paused',
    );
    await page.getByRole('button', { name: 'Resume' }).click();
    await page
      .getByTestId('status')
      .getByText('Running', { exact: true })
      .waitFor({ timeout: 3000 });
    expect((await chat('oa/gpt-test')).status).toBe(200);
  });

  it(title('shows providers and adds one from the form'), async () => {
    await go('Providers');
    await page.getByTestId('provider-oa').waitFor();
    await page.getByRole('button', { name: 'Add provider' }).click();
    const form = page.getByRole('form', { name: 'Add provider' });
    await form.getByLabel('Id').fill('extra');
    await form.getByLabel('Base URL').fill('not a url');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await form.getByRole('alert').waitFor({ timeout: 3000 });
    await form.getByLabel('Base URL').fill(`${primary.url}/v1`);
    await form.getByLabel(/Models/).fill('extra-model');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await page.getByTestId('provider-extra').waitFor({ timeout: 3000 });
    await shoot('providers');
  });

  it(title('tests a connection from its row and shows the result in place'), async () => {
    const row = page.getByTestId('connection-oa-1');
    const button = row.getByRole('button', { name: 'Test connection oa-1' });
    const deleteButton = row.getByRole('button', { name: 'Delete' });
    const before = await deleteButton.boundingBox();
    // Keyboard: focus the button and press Enter.
    await button.focus();
    await page.keyboard.press('Enter');
    const result = row.getByTestId('conn-test-oa-1');
    await expect.poll(() => result.textContent(), { timeout: 5000 }).toMatch(/^OK · \d+ ms$/);
    expect(primary.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models' });
    // The result has its own fixed slot: nothing else in the row moved.
    expect(await deleteButton.boundingBox()).toEqual(before);
  });

  it(title('sets and clears connection options from the connection form'), async () => {
    type Conn = { id: string; disableCooling: boolean; rateLimit: unknown };
    const oa1 = async () =>
      (await admin<{ connections: Conn[] }[]>('/api/providers'))
        .flatMap((p) => p.connections)
        .find((c) => c.id === 'oa-1');
    const edit = async (cooling: boolean, concurrency: string) => {
      await page.getByRole('button', { name: 'Edit connection oa-1' }).click();
      const form = page.getByRole('form', { name: 'Edit connection oa-1' });
      await form.getByLabel('Never cool down').setChecked(cooling);
      await form.getByLabel('Queue concurrency').fill(concurrency);
      await form.getByRole('button', { name: 'Save connection' }).click();
      await form.waitFor({ state: 'detached', timeout: 3000 });
    };
    await edit(true, '2');
    expect(await oa1()).toMatchObject({ disableCooling: true, rateLimit: { concurrency: 2 } });
    // Clearing sends an explicit false and an empty rateLimit (a save keeps what it omits).
    await edit(false, '');
    const cleared = await oa1();
    expect(cleared?.disableCooling).toBe(false);
    expect(cleared?.rateLimit ?? {}).toEqual({});
  });

  it(title('creates an openai-chat provider with quota families'), async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    const form = page.getByRole('form', { name: 'Add provider' });
    await form.getByLabel('Id').fill('chat');
    await form.getByLabel('Format').selectOption('openai-chat');
    await form.getByLabel('Base URL').fill(`${backup.url}/v1`);
    const families = form.getByLabel(/Quota families/);
    await families.fill('no colon here');
    await form.getByRole('button', { name: 'Add provider' }).click();
    expect(await form.getByRole('alert').textContent()).toMatch(/line 1/);
    await families.fill('llama: llama3*, qwen*');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await page.getByTestId('provider-chat').waitFor({ timeout: 3000 });
    const chatProvider = (await admin<ProviderView[]>('/api/providers')).find(
      (p) => p.id === 'chat',
    );
    expect(chatProvider).toMatchObject({
      format: 'openai-chat',
      quotaFamilies: { llama: ['llama3*', 'qwen*'] },
    });
  });

  it(title('edits a provider without losing its models’ context window and price'), async () => {
    await admin('/api/providers', {
      method: 'POST',
      body: JSON.stringify({
        id: 'priced',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        models: [GPT5, GPT5_MINI, 'o3'],
      }),
    });
    const card = page.getByTestId('provider-priced');
    await card.getByRole('button', { name: 'Edit', exact: true }).click({ timeout: 5000 });
    const form = page.getByRole('form', { name: 'Edit provider' });
    await form.getByText(/kept while the id stays listed: gpt-5, gpt-5-mini/).waitFor();
    await form.getByLabel(/Models/).fill('gpt-5, o3, o4-mini');
    await form.getByRole('button', { name: 'Save provider' }).click();
    await form.waitFor({ state: 'detached', timeout: 3000 });
    const priced = (await admin<ProviderView[]>('/api/providers')).find((p) => p.id === 'priced');
    expect(priced?.models).toEqual(['gpt-5', 'o3', 'o4-mini']);
    expect(priced?.modelSpecs).toEqual([GPT5]);
  });

  it(title('lists requests with their routing decision'), async () => {
    await go('Requests');
    const row = page.locator('table.requests tbody tr.clickable').first();
    await row.waitFor({ timeout: 3000 });
    await row.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Routing decision').waitFor();
    await shoot('requests');
  });

  it(
    title(
      'rejects an invalid setting without saving anything, and applies a valid one to the next request',
    ),
    async () => {
      await go('Settings');
      const key = 'timeouts.firstByteMs';
      const input = page.locator(`[id="setting-${key}"]`);
      await input.waitFor();
      await input.fill('5'); // below the minimum of 100
      await page.getByTestId('save-settings').click();
      const row = page.getByTestId(`setting-${key}`);
      await row.getByRole('alert').waitFor({ timeout: 3000 });
      expect(await row.getByRole('alert').textContent()).toMatch(/between|at least|minimum|100/);
      await shoot('settings-invalid');
      const afterInvalid = await admin<SettingView[]>('/api/settings');
      expect(afterInvalid.find((s) => s.key === key)).toMatchObject({
        source: expect.not.stringMatching('saved'),
      });

      await input.fill('300');
      await page.getByTestId('save-settings').click();
      await row.getByTestId('setting-source').getByText('saved').waitFor({ timeout: 3000 });
      const saved = await admin<SettingView[]>('/api/settings');
      expect(saved.find((s) => s.key === key)).toMatchObject({ value: 300, source: 'saved' });
      // Next request: headers later than 300 ms now count as a first-byte timeout.
      primary.script({ delayMs: 1500 });
      const slow = await chat('oa/gpt-test');
      expect(slow.status).toBeGreaterThanOrEqual(500);
      await shoot('settings');
      await admin('/api/settings', { method: 'PATCH', body: JSON.stringify({ [key]: null }) });
    },
  );

  it(title(
    "turns a failing provider's breaker card OPEN without reload, counts down to HALF_OPEN, and resets it",
  ), async () => {
    await go('Resilience');
    backup.setDefault({ status: 503 });
    for (let i = 0; i < 4; i++) await chat('loc/local-model');
    const state = await admin<Snapshot>('/api/state');
    const breaker = state.breakers.find((b) => b.provider === 'loc');
    expect(breaker?.state).toBe('OPEN');
    const card = page.getByTestId('breaker-loc');
    await expect
      .poll(() => card.getByTestId('breaker-state').textContent(), { timeout: 1000, interval: 50 })
      .toBe('OPEN');
    await card.getByTestId('countdown').waitFor();
    await shoot('resilience-open');
    // Lazy recovery: the page reads the snapshot when the reset time is up and shows HALF-OPEN.
    const wait = (breaker?.retryAfterMs ?? 15_000) + 5000;
    await expect
      .poll(() => card.getByTestId('breaker-state').textContent(), { timeout: wait, interval: 200 })
      .toBe('HALF-OPEN');
    backup.setDefault({});
    await card.getByRole('button', { name: 'Reset circuit' }).click();
    await expect
      .poll(() => card.getByTestId('breaker-state').textContent(), { timeout: 3000 })
      .toBe('CLOSED');
  }, 60_000);

  it(title('shows a connection cooling down after a 429, with its countdown'), async () => {
    await go('Resilience');
    // Longer than comboCooldownWait.maxWaitMs (65 s), so the gateway answers instead of waiting.
    primary.script({ status: 429, headers: { 'retry-after': '90' } });
    await chat('oa/gpt-test');
    const state = await admin<Snapshot>('/api/state');
    expect(state.connections.find((c) => c.id === 'oa-1')?.rateLimitedUntil).toBeGreaterThan(
      state.at,
    );
    const row = page.getByTestId('conn-oa-1');
    await expect
      .poll(() => row.getByTestId('conn-state').textContent(), { timeout: 1000, interval: 50 })
      .toBe('cooling');
    await expect(row.getByTestId('countdown').textContent()).resolves.toMatch(/\d+ s|\d+:\d\d/);
    await shoot('resilience-cooling');
    await admin('/api/resilience/connections', {
      method: 'POST',
      body: JSON.stringify({ connection: 'oa-1' }),
    });
  });

  it(title('screenshots the resilience page and is keyboard navigable'), async () => {
    await page.goto(`${base}/ui/#/resilience`);
    await page.getByRole('heading', { name: 'Provider circuits' }).waitFor();
    await shoot('resilience');
    // Tab reaches the page navigation from the top of the document.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(focused.length).toBeGreaterThan(0);
  });
});
