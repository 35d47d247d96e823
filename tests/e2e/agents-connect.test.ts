// The overview's Connect and Undo buttons in a real browser (Debian Chromium via playwright-core)
// against the headless server's `/ui`, with a temp HOME: Connect writes the agent's own config
// file and says where (and where the backup is), Undo puts the file back byte for byte, and an
// agent that reads its base URL only from the environment gets the lines to export.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';

// A user's own settings, in their own layout: four-space indent, no final newline.
const ORIGINAL = '{\n    "theme": "dark",\n    "env": { "KEEP_ME": "1" }\n}';

describe.skipIf(skipReason !== null)('Connect an agent from the dashboard', () => {
  let ui: BrowserGateway;
  let base: string;
  let home: string;
  let page: Page;

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'agents',
      viewport: { width: 1200, height: 1000 },
      engine: ([up], root) => {
        home = join(root, 'home');
        mkdirSync(join(home, '.claude'), { recursive: true });
        writeFileSync(join(home, '.claude', 'settings.json'), ORIGINAL);
        return {
          config: {
            providers: [
              {
                id: 'oa',
                format: 'openai',
                baseUrl: `${up!.url}/v1`,
                authClass: 'api_key',
                connections: [{ id: 'oa-1', apiKey: 'sk-e2e-openai-0123456789' }],
                models: ['gpt-test'],
              },
            ],
            combos: [{ name: 'coder', strategy: 'priority', targets: ['oa/gpt-test'] }],
          },
          env: { HOME: home },
        };
      },
    });
    ({ base, page } = ui);
    await page.goto(dashboardLink(base, ui.engine.adminToken));
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  it('Connect writes Claude Code’s settings and shows where; Undo restores them byte for byte', async () => {
    const settings = join(home, '.claude', 'settings.json');
    const row = page.getByTestId('agent-claude-code');
    await row.getByRole('button', { name: 'Connect Claude Code' }).click({ timeout: 15_000 });
    await row.getByText('Wrote').waitFor({ timeout: 5000 });
    await row.getByText(settings, { exact: true }).first().waitFor();
    await row.getByText(`${settings}.breakwater-backup`, { exact: true }).waitFor();

    const written = JSON.parse(readFileSync(settings, 'utf8'));
    expect(written.theme).toBe('dark');
    expect(written.env).toEqual({
      KEEP_ME: '1',
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_AUTH_TOKEN: 'breakwater-local',
      ANTHROPIC_MODEL: 'coder',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'coder',
    });

    await row.getByRole('button', { name: 'Undo Claude Code' }).click();
    await row.getByText('Restored').waitFor({ timeout: 5000 });
    expect(readFileSync(settings, 'utf8')).toBe(ORIGINAL);
    expect(existsSync(`${settings}.breakwater-backup`)).toBe(false);
  }, 60_000);

  it('Gemini CLI: the key typed is used, and the environment lines are shown', async () => {
    await page.getByLabel('Gateway key the agents present (optional)').fill('bw-e2e-key-42');
    const row = page.getByTestId('agent-gemini-cli');
    await row.getByRole('button', { name: 'Connect Gemini CLI' }).click();
    await row.getByText(`export GOOGLE_GEMINI_BASE_URL=${base}`).waitFor({ timeout: 5000 });
    const dotenv = readFileSync(join(home, '.gemini', '.env'), 'utf8');
    expect(dotenv).toContain('GEMINI_API_KEY=bw-e2e-key-42');
    expect(dotenv).toContain(`GOOGLE_GEMINI_BASE_URL=${base}`);

    await row.getByRole('button', { name: 'Undo Gemini CLI' }).click();
    await row.getByText('Removed').first().waitFor({ timeout: 5000 });
    expect(existsSync(join(home, '.gemini', '.env'))).toBe(false);
    expect(existsSync(join(home, '.gemini', 'settings.json'))).toBe(false);
  }, 60_000);
});
