// Request-shape repairs on the dashboard (issue 17), in a real browser (Debian Chromium driven by
// playwright-core) against the headless server's `/ui`: learnt fixes cleared from the Resilience
// page (one model's, then all), and a combo's context editing set from the combo form. Skips,
// saying so, only where /usr/bin/chromium is absent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/main/engine/engine';
import type { ComboConfig, LearnedFixView } from '../../src/shared/contract';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { captureLogger, standardConfig } from '../support/gateway';
import { learnFixes } from '../support/learn-fixes';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.BREAKWATER_E2E_CHROMIUM ?? '/usr/bin/chromium';
const skipReason = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM} (install Debian's chromium: apt-get install -y chromium)`;

describe.skipIf(skipReason !== null)('request-shape repairs on the dashboard at /ui', () => {
  let up: FakeUpstream;
  let dataDir: string;
  let engine: Engine;
  let base: string;
  let browser: Browser;
  let page: Page;

  const admin = async <T>(path: string): Promise<T> =>
    (await (
      await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${engine.adminToken}` } })
    ).json()) as T;
  const learnt = async () =>
    (await admin<LearnedFixView[]>('/api/resilience/learned-fixes'))
      .map((f) => `${f.provider}/${f.model}`)
      .sort();
  const go = (name: string) =>
    page
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('link', { name: new RegExp(`^${name}`) })
      .click();

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
    up = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'bw-e2e-shape-'));
    engine = createEngine({
      config: standardConfig(up, up),
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
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop({ graceMs: 0 });
    await up?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('forgets one model’s learnt fixes, then all, from the Resilience page', async () => {
    await learnFixes(base, up, ['oa/gpt-test', 'oa2/gpt-backup']);
    expect(await learnt()).toEqual(['oa/gpt-test', 'oa2/gpt-backup']);

    await page.goto(`${base}/ui/#token=${encodeURIComponent(engine.adminToken)}`);
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
