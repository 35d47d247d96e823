// The Usage page's "Session cache, turn by turn" in a real browser (Debian Chromium driven by
// playwright-core) against the headless server's `/ui`: a Chat session on an Anthropic provider
// through the fake upstream's prompt cache, moved to another key by a 503 on one turn.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';

const SYSTEM = 'Read the code before you change it, and keep each change small. '.repeat(100);

describe.skipIf(skipReason !== null)('the session cache view of the Usage page at /ui', () => {
  let ui: BrowserGateway;
  let up: FakeUpstream;
  let page: Page;

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'usage-cache',
      viewport: { width: 1200, height: 900 },
      upstreams: [{ promptCache: true }],
      engine: ([u]) => ({
        config: {
          providers: [
            {
              id: 'an',
              format: 'anthropic',
              baseUrl: u!.url,
              authClass: 'api_key',
              connections: [
                { id: 'an-1', apiKey: 'sk-ant-e2e-a-0123456789' },
                { id: 'an-2', apiKey: 'sk-ant-e2e-b-0123456789' },
              ],
              models: ['claude-test'],
            },
          ],
        },
      }),
    });
    ({ page } = ui);
    [up] = ui.upstreams as [FakeUpstream];
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  it('shows the hit rate per turn and the turn where the cache fell, with why', async () => {
    const messages: { role: string; content: string }[] = [{ role: 'system', content: SYSTEM }];
    for (let turn = 1; turn <= 5; turn++) {
      if (turn === 3) up.script({ status: 503 });
      messages.push({ role: 'user', content: `turn ${turn}: what next?` });
      const res = await fetch(`${ui.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': 'e2e-session' },
        body: JSON.stringify({ model: 'an/claude-test', messages }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      messages.push({ role: 'assistant', content: body.choices[0]!.message.content });
    }
    await page.goto(dashboardLink(ui.base, ui.engine.adminToken));
    await ui.go('Usage');
    const card = page.getByTestId('usage-session-cache');
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('e2e-session');
    const row = card.locator('tbody tr', { hasText: 'e2e-session' });
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 3)).toEqual(['an/claude-test', '5']);
    expect(cells[5]).toContain('turn 3: session moved from an-1 to an-2: failover');
    // One bar per turn, the lost one marked.
    await expect.poll(() => row.locator('.turn-bars > span').count()).toBe(5);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-session-cache.png'), fullPage: true });
  }, 60_000);
});
