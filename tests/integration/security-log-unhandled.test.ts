import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer, type GatewayServer } from '../../src/main/engine/proxy/server';
import { captureLogger } from '../support/gateway';

// An error nothing handled is logged with the request's path only: a Gemini client puts the
// gateway key in the query (`?key=`), which must not reach the log file.
describe('the log line of an unhandled error', () => {
  const log = captureLogger();
  let gs: GatewayServer;
  let base: string;
  beforeAll(async () => {
    gs = createGatewayServer({
      host: '127.0.0.1',
      matchKey: () => null,
      log,
      async proxy() {
        throw new Error('a stage bug');
      },
      async admin() {
        throw new Error('an admin bug');
      },
    });
    await new Promise<void>((r) => gs.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(gs.server.address() as AddressInfo).port}`;
  });
  afterAll(() => gs.close(0));

  it('names the method and path, never the query with the key', async () => {
    const res = await fetch(
      `${base}/v1beta/models/gemini-2.5-pro:generateContent?key=bw-secret-gateway-key&alt=json`,
      { method: 'POST', body: '{}' },
    );
    expect(res.status).toBe(500);
    // Answered in the Gemini client's own error shape.
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('INTERNAL');
    const line = log.lines.find((l) => l.includes('unhandled error'));
    expect(line).toContain(
      'POST /v1beta/models/gemini-2.5-pro:generateContent: Error: a stage bug',
    );
    expect(log.lines.join('\n')).not.toContain('bw-secret-gateway-key');
  });
});
