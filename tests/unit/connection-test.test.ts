import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionTestTarget,
  connectionTestCall,
  testConnection,
} from '../../src/main/engine/admin/connection-test';

const KEY = 'sk-unit-0123456789abcdef';

function target(over: Partial<ConnectionTestTarget['provider']> = {}, secret: string | null = KEY) {
  return {
    provider: {
      id: 'p',
      format: 'openai' as const,
      baseUrl: 'https://api.example.test/v1/',
      authClass: 'api_key' as const,
      ...over,
    },
    connection: { id: 'c', apiKeyEnv: null },
    secret,
  };
}

/** undici `request` stand-in that fails the way undici does (the code on the cause). */
function failingHttp(code: string, message: string): typeof request {
  return (async () => {
    const err = new Error('fetch failed') as Error & { cause?: unknown };
    err.cause = Object.assign(new Error(message), { code });
    throw err;
  }) as unknown as typeof request;
}

describe('the probe request', () => {
  it('is GET {baseUrl}/models with a Bearer key for openai and openai-chat', () => {
    for (const format of ['openai', 'openai-chat'] as const) {
      const call = connectionTestCall(target({ format }).provider, KEY);
      expect(call.url).toBe('https://api.example.test/v1/models');
      expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(call.headers['anthropic-version']).toBeUndefined();
    }
  });
  it('is GET {baseUrl}/v1/models with x-api-key and anthropic-version for anthropic', () => {
    const call = connectionTestCall(
      target({ format: 'anthropic', baseUrl: 'https://api.anthropic.test' }).provider,
      KEY,
    );
    expect(call.url).toBe('https://api.anthropic.test/v1/models');
    expect(call.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
    expect(call.headers.authorization).toBeUndefined();
  });
  it('uses Bearer plus the OAuth beta for an Anthropic subscription token', () => {
    const call = connectionTestCall(
      target({ format: 'anthropic', authClass: 'oauth', baseUrl: 'https://a.test' }).provider,
      KEY,
    );
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call.headers['anthropic-beta']).toBe('oauth-2025-04-20');
  });
});

describe('testConnection outcomes', () => {
  let server: Server;
  let base: string;
  const seen: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    // `/v1/models` never answers (timeouts); `/ok/v1/models` answers a list.
    server = createServer((req, res) => {
      seen.push({ url: req.url, ...req.headers });
      if (req.url?.startsWith('/ok/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'a' }] }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('says it timed out when nothing answers within the deadline', async () => {
    const r = await testConnection(target({ baseUrl: `${base}/v1` }), { timeoutMs: 150 });
    expect(r).toMatchObject({ ok: false, status: null });
    expect(r.message).toMatch(/^no answer from 127\.0\.0\.1:\d+ within 150 ms \(timed out\)$/);
    expect(r.latencyMs).toBeGreaterThanOrEqual(100);
  });

  it('reaches a local provider without a key and sends no credential', async () => {
    const r = await testConnection(target({ baseUrl: `${base}/ok/v1`, authClass: 'local' }, null));
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(r.message).toBe('reachable: GET /ok/v1/models answered HTTP 200 (1 model listed)');
    // Found by its path: under load the previous test's timed-out request can arrive late.
    const local = seen.filter((h) => h.url === '/ok/v1/models');
    expect(local).toHaveLength(1);
    expect(local[0]).not.toHaveProperty('authorization');
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.test', 'host not found (DNS)'],
    ['ECONNREFUSED', 'connect ECONNREFUSED', 'connection refused'],
    ['UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error', 'timed out (connect timed out)'],
  ])('names the network error %s', async (code, message, expected) => {
    const r = await testConnection(target(), { http: failingHttp(code, message) });
    expect(r).toMatchObject({ ok: false, status: null });
    expect(r.message).toBe(`cannot reach api.example.test: ${expected}`);
  });

  it('scrubs the secret from an unknown network error', async () => {
    const r = await testConnection(target(), {
      http: failingHttp('EWEIRD', `proxy rejected ${KEY}`),
    });
    expect(r.message).not.toContain(KEY);
    expect(r.message).toMatch(/^cannot reach api\.example\.test: proxy rejected \[redacted\]$/);
  });

  it('does not call out for a non-local provider without a key', async () => {
    let called = false;
    const http = (async () => {
      called = true;
      throw new Error('unreachable');
    }) as unknown as typeof request;
    const r = await testConnection(
      { ...target({}, null), connection: { id: 'c', apiKeyEnv: 'MY_KEY' } },
      { http },
    );
    expect(called).toBe(false);
    expect(r).toEqual({
      ok: false,
      status: null,
      latencyMs: 0,
      message:
        'no API key: environment variable MY_KEY is not set (or empty) where the gateway runs',
    });
  });
});
