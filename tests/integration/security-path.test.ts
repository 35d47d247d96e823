import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/main/engine/proxy/endpoints';
import { startGateway, type TestGateway } from '../support/gateway';

/** `/v1/` then a run of slashes that does not end the path: the worst case of `/\/+$/`. */
const hostilePath = (slashes: number) => `/v1/${'/'.repeat(slashes)}x`;

function get(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('defect 1: path handling is linear and the request target bounded', () => {
  it('finding the endpoint of a path with a long run of slashes costs microseconds', () => {
    // The regex took ~140 ms for 15 000 slashes; ten lookups of a linear scan take well under one.
    const started = performance.now();
    for (let i = 0; i < 10; i++) expect(findEndpoint(hostilePath(15_000))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
    expect(findEndpoint('/v1/messages///')?.path).toBe('/v1/messages');
    expect(findEndpoint('/')).toBeUndefined();
  });

  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('a request target over 8 KiB gets 414 in the API error shape', async () => {
    const r = await get(gw.url, hostilePath(9000));
    expect(r.status).toBe(414);
    expect(JSON.parse(r.body).error.code).toBe('uri_too_long');
    const anthropic = await get(gw.url, `/v1/messages${'/'.repeat(9000)}`);
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'error' });
  });

  it('a path of slashes only, or naming a host (//x/…), is a path, never a 500', async () => {
    for (const path of ['//', '///////', '//evil.example/v1/chat/completions']) {
      const r = await get(gw.url, path);
      expect(r.status, path).toBe(404);
      expect(JSON.parse(r.body).error.code).toBe('unknown_endpoint');
    }
  });

  it('twenty hostile paths in flight do not stall /api/health', async () => {
    await get(gw.url, '/api/health');
    // Each cost ~160 ms of CPU before the fix, one after the other: /api/health waited ~3 s.
    const hostile = Array.from({ length: 20 }, () => get(gw.url, hostilePath(15_000)));
    const started = performance.now();
    const health = await get(gw.url, '/api/health');
    const took = performance.now() - started;
    await Promise.all(hostile);
    expect(health.status).toBe(200);
    expect(took).toBeLessThan(1000);
  });
});
