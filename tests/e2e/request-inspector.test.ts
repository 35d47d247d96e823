// The request view in a real browser (Debian Chromium driven by playwright-core) against the
// headless server's `/ui` (issue 33): a request that failed on both targets of a combo shows
// both attempts, request beside response; Replay, Replay on… and Copy as curl work. Skips,
// saying so, only where /usr/bin/chromium is absent.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  type BrowserGateway,
  dashboardLink,
  chromiumMissing as skipReason,
  startBrowserGateway,
} from '../support/browser';
import type { FakeUpstream } from '../support/fake-upstream';
import { OPENAI_KEY, OPENAI_KEY_2, standardConfig } from '../support/gateway';

describe.skipIf(skipReason !== null)('the request view at /ui', () => {
  let ui: BrowserGateway;
  let primary: FakeUpstream;
  let backup: FakeUpstream;

  beforeAll(async () => {
    ui = await startBrowserGateway({
      name: 'inspector',
      viewport: { width: 1300, height: 1000 },
      upstreams: [{}, {}],
      engine: ([p, b]) => ({ config: standardConfig(p!, b!) }),
    });
    [primary, backup] = ui.upstreams as [FakeUpstream, FakeUpstream];
    await ui.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: ui.base,
    });
  }, 180_000);

  afterAll(() => ui?.close(), 30_000);

  it('shows both attempts, replays, and copies the request as curl', async () => {
    const { page, engine } = ui;
    const fail = {
      status: 500,
      body: { error: { message: 'primary is down', type: 'server_error' } },
    };
    primary.script(fail);
    backup.script({
      ...fail,
      body: { error: { message: 'backup is down', type: 'server_error' } },
    });
    expect((await ui.chat('coder')).status).toBe(500);
    // The provider is back.
    engine.admin.resetBreakers({});
    for (const c of engine.admin.connectionStates())
      engine.admin.clearConnectionState({ connection: c.id });

    await page.goto(dashboardLink(ui.base, engine.adminToken));
    await ui.go('Requests');
    await page.locator('tr.clickable', { hasText: '500' }).first().click();
    const attempts = page.locator('section.attempt');
    await expect.poll(() => attempts.count()).toBe(2);
    await expect
      .poll(() => attempts.nth(0).locator('h4').textContent())
      .toMatch(/Attempt 1: oa\/gpt-test @oa-1\s+500/);
    await expect.poll(() => attempts.nth(1).locator('h4').textContent()).toMatch(/oa2\/gpt-backup/);
    const sent = await attempts.nth(0).getByTestId('attempt-request').textContent();
    expect(sent).toContain(`POST ${primary.url}/v1/chat/completions`);
    // Pretty-printed JSON, one member a line.
    expect(sent).toContain('"model": "gpt-test"');
    const got = await attempts.nth(1).getByTestId('attempt-response').textContent();
    expect(got).toContain('HTTP 500');
    expect(got).toContain('backup is down');
    await page.screenshot({ path: join(ARTIFACTS, 'request-inspector.png'), fullPage: true });

    await page.getByRole('button', { name: /^Copy as curl/ }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`'${ui.base}/v1/chat/completions'`);
    expect(curl).toContain('"model":"coder"');
    expect(curl).not.toContain(primary.url);
    expect(curl).not.toContain(backup.url);
    for (const secret of [OPENAI_KEY, OPENAI_KEY_2, engine.adminToken]) {
      expect(curl).not.toContain(secret);
    }

    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('replay-outcome').textContent())
      .toMatch(/^Replayed as request \d+: HTTP 200$/);
    await page.getByLabel('Target to replay on').selectOption('oa2/gpt-backup');
    await page.getByRole('button', { name: 'Replay on…' }).click();
    await expect.poll(() => backup.requests.length).toBe(2);
    await expect.poll(() => page.getByTestId('replay-outcome').textContent()).toMatch(/HTTP 200$/);
  });
});
