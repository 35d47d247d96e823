import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

// A kill -9 right after the answer must not lose the action: so the row must already say so
// when the 200 arrives. Read through a second connection, as a restarted engine would.
let gw: TestGateway;
let db: Database.Database;
beforeAll(async () => {
  gw = await startGateway();
  db = new Database(join(gw.dataDir, 'breakwater.db'), { readonly: true });
});
afterAll(async () => {
  db.close();
  await gw.close();
});

const chat = () =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.arrayBuffer());

const breakerRow = () =>
  (
    db.prepare("SELECT state FROM breakers WHERE provider = 'oa'").get() as
      | { state: string }
      | undefined
  )?.state;
const healthRow = () =>
  (
    db.prepare("SELECT health FROM connection_health WHERE connection_id = 'oa-1'").get() as
      | { health: string }
      | undefined
  )?.health;

describe('defect 5: an operator action is committed before it is acknowledged', () => {
  it('POST /api/resilience/reset: the breaker row is CLOSED when the 200 arrives', async () => {
    gw.primary.setDefault({ status: 503 });
    for (let i = 0; i < 12; i++) await chat();
    gw.primary.setDefault({});
    await eventually(() => breakerRow() === 'OPEN');
    const res = await gw.admin('/api/resilience/reset', {
      method: 'POST',
      body: '{"provider":"oa"}',
    });
    expect(res.status).toBe(200);
    expect(breakerRow()).toBe('CLOSED');
  });

  it('POST /api/resilience/connections: the cooldown row is cleared when the 200 arrives', async () => {
    gw.primary.script({ status: 429, headers: { 'retry-after': '600' } });
    await chat();
    const rateLimited = () => JSON.parse(healthRow() ?? '{}').rateLimitedUntil;
    await eventually(() => typeof rateLimited() === 'number');
    const res = await gw.admin('/api/resilience/connections', {
      method: 'POST',
      body: '{"connection":"oa-1"}',
    });
    expect(res.status).toBe(200);
    expect(rateLimited() ?? null).toBeNull();
  });
});
