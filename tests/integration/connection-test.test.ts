// "Test a connection" (`POST /api/connections/{id}/test`) against the fake upstream: the right
// credential header per format, a refused key, an unreachable base URL and a missing key, each
// answered as a diagnostic that leaves breakers, cooldowns and the request log alone.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionTestResult, EngineEvent, Snapshot } from '../../src/shared/contract';
import {
  ANTHROPIC_KEY,
  OPENAI_KEY,
  OPENAI_KEY_2,
  startGateway,
  type TestGateway,
} from '../support/gateway';

const SECRETS = [OPENAI_KEY, OPENAI_KEY_2, ANTHROPIC_KEY, 'sk-gone-0123456789abcdef'];

let gw: TestGateway;
let before: Snapshot;
const events: EngineEvent[] = [];
let stopEvents: () => void = () => {};

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function test(
  id: string,
): Promise<{ status: number; text: string; body: ConnectionTestResult }> {
  const res = await gw.admin(`/api/connections/${encodeURIComponent(id)}/test`, {
    method: 'POST',
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as ConnectionTestResult };
}

function expectNoSecrets(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

beforeAll(async () => {
  gw = await startGateway();
  const port = await closedPort();
  const add = await gw.admin('/api/providers', {
    method: 'POST',
    body: JSON.stringify({
      id: 'gone',
      format: 'openai',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      authClass: 'api_key',
      models: ['gone-model'],
      connections: [
        { id: 'gone-1', apiKey: 'sk-gone-0123456789abcdef' },
        { id: 'gone-nokey', apiKeyEnv: 'BW_TEST_KEY_THAT_IS_NOT_SET' },
      ],
    }),
  });
  expect(add.status).toBe(201);
  before = (await (await gw.admin('/api/state')).json()) as Snapshot;
  stopEvents = gw.engine.onEvent((e) => events.push(e));
});

afterAll(async () => {
  stopEvents();
  await gw.close();
});

describe('POST /api/connections/{id}/test', () => {
  it('succeeds for an OpenAI-format connection, sending its key as a Bearer token to GET /models', async () => {
    const before = gw.primary.requests.length;
    const { status, text, body } = await test('oa-1');
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, status: 200 });
    expect(body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(body.message).toMatch(
      /key accepted: GET \/v1\/models answered HTTP 200 \(\d+ models listed\)/,
    );
    expectNoSecrets(text);
    const seen = gw.primary.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(seen[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('succeeds for an Anthropic connection, sending x-api-key and anthropic-version to GET /v1/models', async () => {
    const before = gw.primary.requests.length;
    const { body, text } = await test('an-1');
    expect(body).toMatchObject({ ok: true, status: 200 });
    expectNoSecrets(text);
    const seen = gw.primary.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(seen[0]!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('reports a refused key (401) with the upstream reason, scrubbed of the secret', async () => {
    gw.primary.modelsAnswer = {
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
    try {
      const { status, text, body } = await test('oa-1');
      expect(status).toBe(200);
      expect(body).toMatchObject({ ok: false, status: 401 });
      expect(body.message).toMatch(/^the provider refused the key \(HTTP 401\): Incorrect API key/);
      expect(body.message).toContain('[redacted]');
      expectNoSecrets(text);
      for (const line of gw.log.lines) expectNoSecrets(line);
    } finally {
      gw.primary.modelsAnswer = null;
    }
  });

  it('names a provider failure (503) without counting it against the provider', async () => {
    gw.primary.modelsAnswer = { status: 503, body: { error: { message: 'overloaded' } } };
    try {
      for (let i = 0; i < 6; i++) {
        const { body } = await test('oa-1');
        expect(body).toMatchObject({ ok: false, status: 503 });
        expect(body.message).toBe('the provider failed (HTTP 503): overloaded');
      }
    } finally {
      gw.primary.modelsAnswer = null;
    }
  });

  it('names the network error for an unreachable base URL', async () => {
    const { text, body } = await test('gone-1');
    expect(body).toMatchObject({ ok: false, status: null });
    expect(body.message).toMatch(/^cannot reach 127\.0\.0\.1:\d+: connection refused$/);
    expectNoSecrets(text);
  });

  it('answers "no API key" without calling out when the key is missing', async () => {
    const before = gw.primary.requestCount + gw.backup.requestCount;
    const { body } = await test('gone-nokey');
    expect(body).toEqual({
      ok: false,
      status: null,
      latencyMs: 0,
      message: expect.stringMatching(
        /^no API key: environment variable BW_TEST_KEY_THAT_IS_NOT_SET is not set/,
      ),
    });
    expect(gw.primary.requestCount + gw.backup.requestCount).toBe(before);
  });

  it('answers 404 for an unknown connection and 401 without the admin token', async () => {
    const res = await gw.admin('/api/connections/nope/test', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    const anon = await fetch(`${gw.url}/api/connections/oa-1/test`, { method: 'POST' });
    expect(anon.status).toBe(401);
    const get = await gw.admin('/api/connections/oa-1/test');
    expect(get.status).toBe(405);
  });

  it('leaves breakers, connection states and the request log exactly as they were', async () => {
    const after = (await (await gw.admin('/api/state')).json()) as Snapshot;
    expect(after.breakers).toEqual(before.breakers);
    expect(after.connections).toEqual(before.connections);
    expect(after.lockouts).toEqual(before.lockouts);
    for (const c of after.connections) {
      expect(c).toMatchObject({ status: 'active', backoffLevel: 0, lastError: null });
    }
    for (const b of after.breakers) expect(b).toMatchObject({ state: 'CLOSED', failureCount: 0 });
    expect(after.gateway).toMatchObject({ requestsTotal: 0, errorsTotal: 0 });
    expect(await (await gw.admin('/api/logs')).json()).toEqual([]);
    expect(events.filter((e) => e.type !== 'config.changed')).toEqual([]);
  });
});
