// Keys created in the store (POST /api/keys, `breakwater keys create`) count wherever the
// config file's keys do: the session-lease endpoint, leases following their key, and the check
// that refuses a non-loopback bind address without any gateway key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/index';
import type { CreatedGatewayKey, EngineEvent, Snapshot } from '../../src/shared/contract';
import { captureLogger, startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway();
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());

async function lease(key: string | null, body: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/api/v1/session-leases`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field.
  return { status: res.status, body: (await res.json()) as any };
}

async function createKey(body: unknown): Promise<CreatedGatewayKey> {
  const res = await gw.admin('/api/keys', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedGatewayKey;
}

describe('session leases with keys from the store', () => {
  it('with no key at all the endpoint says leases need one', async () => {
    const r = await lease(null, { action: 'acquire' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('lease_scope_required');
  });

  it('a key created by POST /api/keys with lease:exclusive takes an exclusive lease; revoking it ends the lease', async () => {
    const k = await createKey({
      name: 'agent',
      scopes: ['lease:exclusive'],
      allowedConnections: ['oa-1'],
    });
    // Now that a key exists, a request without one is unauthenticated, not "no keys".
    expect((await lease(null, { action: 'acquire' })).status).toBe(401);
    const got = await lease(k.key, { action: 'acquire' });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ connection: 'oa-1', generation: 1, state: 'ACTIVE' });
    const state = (await (await gw.admin('/api/state')).json()) as Snapshot;
    expect(state.leases.map((l) => l.connection)).toEqual(['oa-1']);

    expect((await gw.admin(`/api/keys/${k.id}`, { method: 'DELETE' })).status).toBe(200);
    const after = (await (await gw.admin('/api/state')).json()) as Snapshot;
    expect(after.leases).toEqual([]);
    expect(events.find((e) => e.type === 'lease.ended')).toMatchObject({
      lease: { connection: 'oa-1', state: 'INVALIDATED' },
    });
  });

  it('a store key without the scope is refused, and PATCHing the scope in lets it lease', async () => {
    const k = await createKey({ name: 'plain' });
    const refused = await lease(k.key, { action: 'acquire' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('PATCH /api/keys');
    const patched = await gw.admin(`/api/keys/${k.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ scopes: ['lease:exclusive'], allowedConnections: ['oa-1'] }),
    });
    expect(patched.status).toBe(200);
    expect((await lease(k.key, { action: 'acquire' })).status).toBe(200);
  });
});

describe('the non-loopback bind check', () => {
  it('refuses 0.0.0.0 without keys, and starts there when only store keys exist', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bw-bind-'));
    const dataDir = join(root, 'data');
    const log = captureLogger();
    try {
      expect(() => createEngine({ dataDir, host: '0.0.0.0', port: 0, log })).toThrow(
        /refusing to listen on 0\.0\.0\.0: a non-loopback address needs a gateway API key/,
      );
      const local = createEngine({ dataDir, port: 0, log });
      const created = await local.actions.createKey({ name: 'remote' });
      expect(created.ok).toBe(true);
      await local.stop({ graceMs: 0 });

      const open = createEngine({ dataDir, host: '0.0.0.0', port: 0, log });
      try {
        const { port } = await open.listen();
        expect(port).toBeGreaterThan(0);
      } finally {
        await open.stop({ graceMs: 0 });
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
