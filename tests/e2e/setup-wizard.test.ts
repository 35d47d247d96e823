// The setup wizard in a real browser (Debian Chromium via playwright-core) against the headless
// server's `/ui`: from an empty store to a combo serving the fake upstream, found as a local
// server and chosen by clicks only (no URL typed). Skips, saying so, where Chromium is absent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/main/engine/engine';
import {
  type BrowserGateway,
  dashboardLink,
  ROOT,
  chromiumMissing as skipReason,
  startBrowserGateway,
  UI_DIR,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';
import { captureLogger } from '../support/gateway';

describe.skipIf(skipReason !== null)('setup wizard on an empty store', () => {
  let ui: BrowserGateway;
  let up: FakeUpstream;
  let engine: Engine;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'setup',
      viewport: { width: 1200, height: 900 },
      upstreams: [{ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] }],
      // The fake upstream stands in for Ollama; the other local presets point where nothing answers.
      engine: ([u]) => {
        const nothing = `${u!.url}/nothing-here`;
        return {
          localServerUrls: {
            ollama: `${u!.url}/v1`,
            lmstudio: nothing,
            llamacpp: nothing,
            vllm: nothing,
          },
        };
      },
    });
    ({ engine, base, page } = ui);
    [up] = ui.upstreams as [FakeUpstream];
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  it('offers the local server found, builds a combo with clicks, and the combo serves', async () => {
    await page.goto(dashboardLink(base, engine.adminToken));
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
    const res = await ui.chat('coder');
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
      uiDir: UI_DIR,
      localServerUrls: {},
    });
    try {
      const url = (await other.listen()).baseUrl;
      await page.goto(dashboardLink(url, other.adminToken));
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
      // Claude Code's rule set is shown in full first, and written only on the click.
      const offer = wizard.getByTestId('setup-claude-code-rules');
      await offer.waitFor({ timeout: 5000 });
      expect(await offer.textContent()).toMatch(/background: model "claude-\*haiku\*" → \S+\//);
      expect(other.admin.listRules().rules).toEqual([]);
      await offer.getByRole('button', { name: 'Add these rules' }).click();
      await offer.getByRole('button', { name: 'Rules added' }).waitFor({ timeout: 5000 });
      expect(other.admin.listRules().rules.map((r) => r.name)).toEqual(
        expect.arrayContaining(['background']),
      );
    } finally {
      await other.stop({ graceMs: 0 });
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
