// Moving the gateway to another host and port while it serves (`POST /api/gateway/address`, the
// dashboard's Settings page): through the real server, with real sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/index';
import type { EngineEvent } from '../../src/shared/contract';
import { captureLogger, startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway | null = null;
const held: Server[] = [];
afterEach(async () => {
  for (const s of held.splice(0)) await new Promise((done) => s.close(done));
  await gw?.close();
  gw = null;
});

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const { port } = s.address() as { port: number };
  await new Promise((done) => s.close(done));
  return port;
}

/** A port another program holds for the test. */
async function takenPort(): Promise<number> {
  const s = createServer();
  held.push(s);
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return (s.address() as { port: number }).port;
}

async function move(g: TestGateway, body: unknown) {
  const res = await g.admin('/api/gateway/address', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers and errors are read by field
  return { status: res.status, body: (await res.json()) as any };
}

const chat = (base: string, model = 'coder') =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('changing the port and host while serving', () => {
  it('rebinds live: the new listener serves, a request in flight on the old one finishes', async () => {
    gw = await startGateway();
    const g = gw;
    const oldUrl = g.url;
    const events: EngineEvent[] = [];
    g.engine.onEvent((e) => events.push(e));
    g.primary.script({ delayMs: 400 });
    const slow = chat(oldUrl);
    await g.primary.waitForRequests(1);

    const port = await freePort();
    const moved = await move(g, { port });
    expect(moved).toEqual({
      status: 200,
      body: { host: '127.0.0.1', port, baseUrl: `http://127.0.0.1:${port}` },
    });
    expect((await slow).status).toBe(200);
    expect((await chat(`http://127.0.0.1:${port}`)).status).toBe(200);
    await expect(fetch(`${oldUrl}/api/health`)).rejects.toThrow();
    expect(g.engine.snapshot().gateway).toMatchObject({
      port,
      baseUrl: `http://127.0.0.1:${port}`,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'gateway.moved', port, from: oldUrl }),
    );
  });

  it('two moves at once run one after the other and leave one listener, the one shown (issue 27)', async () => {
    gw = await startGateway();
    const g = gw;
    const oldUrl = g.url;
    const [a, b] = [await freePort(), await freePort()];
    // Started in the same tick (over HTTP the second body may arrive after the first move is done).
    const [ra, rb] = await Promise.all([
      g.engine.actions.setGatewayAddress({ port: a }),
      g.engine.actions.setGatewayAddress({ port: b }),
    ]);
    expect([ra.ok, rb.ok]).toEqual([true, true]);
    // Serialised: the second move starts from where the first one left the gateway.
    const shown = g.engine.snapshot().gateway.port;
    expect(shown).toBe(b);
    expect((await chat(`http://127.0.0.1:${b}`)).status).toBe(200);
    for (const gone of [oldUrl, `http://127.0.0.1:${a}`]) {
      await expect(fetch(`${gone}/api/health`)).rejects.toThrow();
    }
  });

  it('a taken port: a clear error, and the old listener keeps serving', async () => {
    gw = await startGateway();
    const port = await takenPort();
    const r = await move(gw, { port });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'address_in_use', field: 'port' });
    expect(r.body.error.message).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(r.body.error.message).toContain(`still serving on ${gw.url}`);
    expect((await chat(gw.url)).status).toBe(200);
  });

  it('validates the port and host, and refuses a non-loopback host until a gateway key exists', async () => {
    gw = await startGateway();
    for (const [body, field] of [
      [{ port: 70_000 }, 'port'],
      [{ port: 0 }, 'port'],
      [{ port: '4242' }, 'port'],
      [{ port: 4242, host: 'not a host!' }, 'host'],
      [[], 'body'],
    ] as const) {
      const r = await move(gw, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field).toBe(field);
    }
    const port = await freePort();
    const refused = await move(gw, { host: '0.0.0.0', port });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'gateway_keys_required', field: 'host' });
    expect(refused.body.error.message).toMatch(/refusing to listen on 0\.0\.0\.0/);

    const key = await gw.admin('/api/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'lan' }),
    });
    expect(key.status).toBe(201);
    const secret = ((await key.json()) as { key: string }).key;
    const moved = await move(gw, { host: '0.0.0.0', port });
    expect(moved.status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${port}/v1/models`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);

    // Another host on the same port: the OS gives a port once, so the old listener lets go first.
    const lo = await fetch(`http://127.0.0.1:${port}/api/gateway/address`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.engine.adminToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ host: '127.0.0.1', port }),
    });
    expect(lo.status).toBe(200);
    expect(gw.engine.snapshot().gateway).toMatchObject({ host: '127.0.0.1', port });
    expect((await chat(`http://127.0.0.1:${port}`)).status).toBe(401);
  });

  it('the next start uses it, unless the config file changed since or a flag says otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bw-address-'));
    const log = captureLogger();
    const configured = await freePort();
    const build = (port: number, flags: { port?: number } = {}) =>
      createEngine({
        config: { gateway: { port } },
        dataDir: dir,
        log,
        env: {},
        ...flags,
      });
    try {
      let engine = build(configured);
      await engine.listen();
      const moved = await freePort();
      const r = await engine.actions.setGatewayAddress({ port: moved });
      expect(r).toMatchObject({ ok: true, data: { port: moved } });
      await engine.stop({ graceMs: 0 });

      engine = build(configured);
      expect((await engine.listen()).port).toBe(moved);
      await engine.stop({ graceMs: 0 });

      engine = build(configured, { port: 0 });
      expect((await engine.listen()).port).not.toBe(moved);
      await engine.stop({ graceMs: 0 });

      const edited = await freePort();
      engine = build(edited);
      expect((await engine.listen()).port).toBe(edited);
      await engine.stop({ graceMs: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
