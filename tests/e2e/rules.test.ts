// The Rules page in a real browser (Debian Chromium driven by playwright-core) against the
// headless server's `/ui`: add and edit rules, reorder them, save (the gateway routes by them
// from the next request), and try a request. Skips, saying so, only where /usr/bin/chromium is absent.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import type { RuleConfig } from '../../src/shared/contract';
import {
  ARTIFACTS,
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import { standardConfig } from '../support/gateway';

describe.skipIf(skipReason !== null)('the Rules page at /ui', () => {
  let ui: BrowserGateway;
  let engine: Engine;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'rules',
      viewport: { width: 1200, height: 900 },
      engine: ([u]) => {
        const config = standardConfig(u!, u!);
        config.rules = [{ name: 'background', when: { model: 'claude-*haiku*' }, use: 'coder' }];
        return { config };
      },
    });
    ({ engine, base, page } = ui);
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  const saved = async () =>
    ((await ui.admin('/api/rules')) as { rules: RuleConfig[] }).rules.map((r) => r.name);

  it('edits, reorders and saves rules, refusing a use that names nothing', async () => {
    await page.goto(dashboardLink(base, engine.adminToken));
    await ui.go('Rules');
    const rows = page.getByTestId('rule-row');
    await expect.poll(() => rows.count()).toBe(1);

    await page.getByRole('button', { name: 'Add rule' }).click();
    const added = rows.nth(1);
    await added.getByLabel('Name').fill('claude-all');
    await added.getByLabel('Use (a combo or provider/model)').fill('nowhere');
    await added.getByLabel(/^When/).fill('{"client": "anthropic"}');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toContain('rules[1].use');
    expect(await saved()).toEqual(['background']);

    await added.getByLabel('Use (a combo or provider/model)').fill('claude');
    await page.getByRole('button', { name: 'Move claude-all up' }).click();
    await expect.poll(() => rows.first().getByLabel('Name').inputValue()).toBe('claude-all');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expect.poll(saved).toEqual(['claude-all', 'background']);

    // The gateway routes by the saved order from the next request.
    const res = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-haiku-4-5-20251001',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(decodeURIComponent(res.headers.get('x-breakwater-decision') ?? '')).toMatch(
      /^rule claude-all → claude;/,
    );
  }, 60_000);

  it('tries a request and says why the earlier rules missed', async () => {
    // The page re-reads the rules after the last save: move only once it shows them, and save
    // only once the move shows, or a slow machine saves the old order.
    const first = () => page.getByTestId('rule-row').first().getByLabel('Name').inputValue();
    await expect.poll(first).toBe('claude-all');
    await page.getByRole('button', { name: 'Move claude-all down' }).click();
    await expect.poll(first).toBe('background');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expect.poll(saved).toEqual(['background', 'claude-all']);
    await page
      .getByLabel('Request body')
      .fill(
        JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
      );
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByTestId('rule-try-result');
    await expect.poll(() => result.textContent()).toContain('Takes rule claude-all → claude');
    expect(await result.textContent()).toContain(
      'background: model claude-sonnet-4-5 is not claude-*haiku*',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'rules.png'), fullPage: true });
  }, 60_000);

  it('an edit made while the page re-reads the rules after a save is kept', async () => {
    const first = () => page.getByTestId('rule-row').first().getByLabel('Name').inputValue();
    await expect.poll(first).toBe('background');
    // The re-read that follows the save is held back, so the edit lands while it is out.
    let reading: () => void = () => {};
    const readStarted = new Promise<void>((r) => {
      reading = r;
    });
    let answered: () => void = () => {};
    const readAnswered = new Promise<void>((r) => {
      answered = r;
    });
    await page.route('**/api/rules', async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      reading();
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
      answered();
    });
    try {
      await page.getByRole('button', { name: 'Move claude-all up' }).click();
      await expect.poll(first).toBe('claude-all');
      await page.getByRole('button', { name: 'Save rules' }).click();
      await expect.poll(saved).toEqual(['claude-all', 'background']);
      await readStarted;
      await page.getByRole('button', { name: 'Move claude-all down' }).click();
      await readAnswered;
      // Long enough for the page to have applied what the read brought back, had it used it.
      await new Promise((r) => setTimeout(r, 300));
      expect(await first()).toBe('background');
    } finally {
      await page.unroute('**/api/rules');
    }
  }, 60_000);
});
