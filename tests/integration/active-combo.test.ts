// The active combo (setting `routing.activeCombo`): what the model "default" routes to, through
// the real gateway and a fake upstream. Requests naming a combo or model themselves are unaffected.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());
beforeEach(async () => {
  await gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({ 'routing.activeCombo': null }),
  });
  gw.primary.reset();
  gw.backup.reset();
});

const activate = (name: string | null) =>
  gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({ 'routing.activeCombo': name }),
  });

async function chat(model: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('the active combo', () => {
  it('routes the model "default" to the active combo, and switching changes where it goes', async () => {
    expect((await chat('default')).status).toBe(404);

    expect((await activate('coder')).status).toBe(200);
    const first = await chat('default');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-breakwater-decision')).toMatch(/^combo coder \(priority\)/);
    expect(gw.primary.requests.at(-1)?.body.model).toBe('gpt-test');
    expect(gw.engine.snapshot().gateway.activeCombo).toBe('coder');

    expect((await activate('claude')).status).toBe(200);
    const second = await chat('default');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-breakwater-decision')).toMatch(/^combo claude \(priority\)/);
    const last = gw.primary.requests.at(-1);
    expect(last?.path).toBe('/v1/messages');
    expect(last?.body.model).toBe('claude-test');
  });

  it('lists "default" among the models while a combo is active', async () => {
    const ids = async () =>
      ((await (await fetch(`${gw.url}/v1/models`)).json()) as { data: { id: string }[] }).data.map(
        (m) => m.id,
      );
    expect(await ids()).not.toContain('default');
    await activate('coder');
    expect((await ids())[0]).toBe('default');
  });

  it('leaves requests that name a combo or a model alone', async () => {
    await activate('claude');
    const res = await chat('coder');
    expect(res.headers.get('x-breakwater-decision')).toMatch(/^combo coder/);
    await chat('oa2/gpt-backup');
    expect(gw.backup.requests.at(-1)?.body.model).toBe('gpt-backup');
  });

  it('refuses a combo that does not exist, naming the setting', async () => {
    const res = await activate('nope');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { field: string; message: string } };
    expect(body.error.field).toBe('routing.activeCombo');
    expect(body.error.message).toMatch(/combo "nope" does not exist/);
    expect(gw.engine.snapshot().gateway.activeCombo).toBeNull();
  });

  it('a combo named "default" wins, and deleting the active combo clears it', async () => {
    const made = await gw.admin('/api/combos', {
      method: 'POST',
      body: JSON.stringify({ name: 'default', strategy: 'priority', targets: ['oa2/gpt-backup'] }),
    });
    expect(made.status).toBe(201);
    await activate('coder');
    expect((await chat('default')).headers.get('x-breakwater-decision')).toMatch(/^combo default/);
    await gw.admin('/api/combos/default', { method: 'DELETE' });

    const temp = await gw.admin('/api/combos', {
      method: 'POST',
      body: JSON.stringify({ name: 'temp', strategy: 'priority', targets: ['oa/gpt-test'] }),
    });
    expect(temp.status).toBe(201);
    await activate('temp');
    await gw.admin('/api/combos/temp', { method: 'DELETE' });
    expect(gw.engine.snapshot().gateway.activeCombo).toBeNull();
  });
});
