// The setup wizard in a real browser (Debian Chromium via playwright-core) against the headless
// server's `/ui`: from an empty store to a combo serving the fake upstream, found as a local
// server and chosen by clicks only (no URL typed). Skips, saying so, where Chromium is absent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/main/engine/engine';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { captureLogger } from '../support/gateway';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.BREAKWATER_E2E_CHROMIUM ?? '/usr/bin/chromium';
const skipReason = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;

describe.skipIf(skipReason !== null)('setup wizard on an empty store', () => {
  let up: FakeUpstream;
  let engine: Engine;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
    up = await startFakeUpstream({ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] });
    dataDir = mkdtempSync(join(tmpdir(), 'bw-e2e-setup-'));
    // The fake upstream stands in for Ollama; the other local presets point where nothing answers.
    const nothing = `${up.url}/nothing-here`;
    engine = createEngine({
      dataDir,
      port: 0,
      log: captureLogger(),
      env: {},
      uiDir: join(ROOT, 'out', 'renderer'),
      localServerUrls: {
        ollama: `${up.url}/v1`,
        lmstudio: nothing,
        llamacpp: nothing,
        vllm: nothing,
      },
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

  it('offers the local server found, builds a combo with clicks, and the combo serves', async () => {
    await page.goto(`${base}/ui/#token=${encodeURIComponent(engine.adminToken)}`);
    const wizard = page.getByTestId('setup-wizard');
    const ollama = wizard.getByRole('checkbox', { name: /Ollama/ });
    await ollama.waitFor({ timeout: 15_000 });
    expect(await ollama.isChecked()).toBe(true);
    await wizard.getByText(/server answering at .*· 2 model\(s\)/).waitFor();
    // Found means offered, not added: nothing is stored until the user confirms.
    expect(engine.admin.listProviders()).toEqual([]);

    await wizard.getByRole('button', { name: 'Add providers' }).click();
    await wizard.getByTestId('setup-combo').waitFor({ timeout: 5000 });
    expect(await wizard.getByLabel('Model of Ollama').inputValue()).toBe('qwen2.5-coder:7b');
    await wizard.getByRole('button', { name: 'Create combo' }).click();
    await wizard.getByTestId('setup-agent').waitFor({ timeout: 5000 });
    await wizard.getByText(/ANTHROPIC_MODEL=coder claude/).waitFor();
    await wizard.getByRole('button', { name: 'Done' }).click();
    await wizard.waitFor({ state: 'detached', timeout: 5000 });

    expect(engine.admin.listProviders().map((p) => [p.id, p.baseUrl, p.authClass])).toEqual([
      ['ollama', `${up.url}/v1`, 'local'],
    ]);
    expect(engine.admin.listCombos()).toEqual([
      { name: 'coder', strategy: 'priority', targets: ['ollama/qwen2.5-coder:7b'] },
    ]);
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'coder', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(up.requests.at(-1)?.body).toMatchObject({ model: 'qwen2.5-coder:7b' });
  }, 60_000);

  it('imports another gateway config after a preview that shows what is skipped and no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bw-e2e-import-'));
    const other = createEngine({
      dataDir: dir,
      port: 0,
      log: captureLogger(),
      env: {},
      uiDir: join(ROOT, 'out', 'renderer'),
      localServerUrls: {},
    });
    try {
      const url = (await other.listen()).baseUrl;
      await page.goto(`${url}/ui/#token=${encodeURIComponent(other.adminToken)}`);
      const wizard = page.getByTestId('setup-wizard');
      await wizard.getByText('Import from another gateway').click();
      await wizard.getByLabel('Tool').selectOption('claude-code-router');
      await wizard
        .getByLabel('File')
        .setInputFiles(join(ROOT, 'tests/fixtures/import/claude-code-router.json'));
      await wizard.getByRole('button', { name: 'Preview' }).click();
      await wizard
        .getByText(/Providers\[4\] mystery: cannot tell the API/)
        .waitFor({ timeout: 5000 });
      expect(await page.content()).not.toMatch(/secret/);
      expect(other.admin.listProviders()).toEqual([]);
      await wizard.getByRole('button', { name: 'Import' }).click();
      await wizard.getByTestId('setup-agent').waitFor({ timeout: 5000 });
      expect(other.admin.listProviders().map((p) => p.id)).toEqual([
        'openrouter',
        'deepseek',
        'ollama',
        'gemini',
      ]);
      expect(other.admin.listCombos().map((c) => c.name)).toContain('default');
    } finally {
      await other.stop({ graceMs: 0 });
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
