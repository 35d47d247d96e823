// Request-shape repairs on the dashboard (issue 17), in a real browser (Debian Chromium driven by
// playwright-core) against the headless server's `/ui`: learnt fixes cleared from the Resilience
// page (one model's, then all), and a combo's context editing set from the combo form. Skips,
// saying so, only where /usr/bin/chromium is absent.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import type { ComboConfig, LearnedFixView } from '../../src/shared/contract';
import {
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';
import { learnFixes } from '../support/learn-fixes';

describe.skipIf(skipReason !== null)('request-shape repairs on the dashboard at /ui', () => {
  let ui: BrowserGateway;
  let up: FakeUpstream;
  let engine: Engine;
  let base: string;
  let page: Page;
  let admin: BrowserGateway['admin'];
  let go: BrowserGateway['go'];

  const learnt = async () =>
    (await admin<LearnedFixView[]>('/api/resilience/learned-fixes'))
      .map((f) => `${f.provider}/${f.model}`)
      .sort();

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'shape',
      viewport: { width: 1200, height: 900 },
      engine: ([u]) => ({ config: standardConfig(u!, u!) }),
    });
    ({ engine, base, page, admin, go } = ui);
    [up] = ui.upstreams as [FakeUpstream];
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  it('forgets one model’s learnt fixes, then all, from the Resilience page', async () => {
    await learnFixes(base, up, ['oa/gpt-test', 'oa2/gpt-backup']);
    expect(await learnt()).toEqual(['oa/gpt-test', 'oa2/gpt-backup']);

    await page.goto(dashboardLink(base, engine.adminToken));
    await go('Resilience');
    const card = page.getByTestId('learned-fixes');
    await expect.poll(() => card.locator('tbody tr').count(), { timeout: 10_000 }).toBe(2);

    await card.getByTestId('forget-oa/gpt-test').click();
    await expect.poll(() => card.locator('tbody tr').count(), { timeout: 5000 }).toBe(1);
    expect(await card.locator('tbody').textContent()).toContain('gpt-backup');
    expect(await learnt()).toEqual(['oa2/gpt-backup']);

    await card.getByTestId('forget-all-fixes').click();
    await card.getByText("No provider has refused a request's shape yet.").waitFor({
      timeout: 5000,
    });
    expect(await learnt()).toEqual([]);
  }, 60_000);

  it('sets a combo’s context editing from the combo form', async () => {
    await go('Providers');
    const card = page.getByTestId('combo-coder');
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit combo coder' });
    await form.getByLabel('Context editing').selectOption('true');
    await form.getByRole('button', { name: 'Save combo' }).click();
    await form.waitFor({ state: 'detached', timeout: 5000 });
    const combos = await admin<ComboConfig[]>('/api/combos');
    expect(combos.find((c) => c.name === 'coder')?.options).toEqual({ contextEditing: true });
    await expect
      .poll(() => card.textContent(), { timeout: 5000 })
      .toContain('Context editing: on for this combo');
  }, 60_000);
});
