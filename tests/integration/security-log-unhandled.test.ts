import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayServer,
  type GatewayServer,
  type ServerDeps,
} from '../../src/main/engine/proxy/server';
import { captureLogger, startGateway, type TestGateway } from '../support/gateway';

// An error nothing handled is logged with the request's path only: a Gemini client puts the
// gateway key in the query (`?key=`), which must not reach the log file.
/** A gateway server on a free port whose proxy and admin handlers are the given ones. */
function failingServer(handlers: Pick<ServerDeps, 'proxy' | 'admin'>): {
  log: ReturnType<typeof captureLogger>;
  base: () => string;
} {
  const log = captureLogger();
  let gs: GatewayServer;
  let base = '';
  beforeAll(async () => {
    gs = createGatewayServer({ host: '127.0.0.1', matchKey: () => null, log, ...handlers });
    await new Promise<void>((r) => gs.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(gs.server.address() as AddressInfo).port}`;
  });
  afterAll(() => gs.close(0));
  return { log, base: () => base };
}

describe('the log line of an unhandled error', () => {
  const { log, base } = failingServer({
    async proxy() {
      throw new Error('a stage bug');
    },
    async admin() {
      throw new Error('an admin bug');
    },
  });

  it('names the method and path, never the query with the key', async () => {
    const res = await fetch(
      `${base()}/v1beta/models/gemini-2.5-pro:generateContent?key=bw-secret-gateway-key&alt=json`,
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

// The server's dispatch is a plain function (no promise of its own per request): a handler that
// throws before it returns a promise is answered and logged the same as one that rejects.
describe('a handler that throws synchronously', () => {
  const { log, base } = failingServer({
    proxy() {
      throw new Error('a synchronous stage bug');
    },
    admin() {
      throw new Error('a synchronous admin bug');
    },
  });

  it('is a 500 in the client format with one log line, and the server serves on', async () => {
    const res = await fetch(`${base()}/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: '{}',
    });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { type: string }).type).toBe('error');
    const admin = await fetch(`${base()}/api/health`, { headers: { host: '127.0.0.1' } });
    expect(admin.status).toBe(500);
    expect(log.lines.filter((l) => l.includes('unhandled error'))).toEqual([
      expect.stringContaining('POST /v1/messages: Error: a synchronous stage bug'),
      expect.stringContaining('GET /api/health: Error: a synchronous admin bug'),
    ]);
  });
});

describe('issue 27: a client that drops its upload', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('is a client abort, logged below error level and counted, not an unhandled error', async () => {
    const { port } = new URL(gw.url);
    const head = 'host: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n';
    for (const start of [
      'POST /v1/chat/completions HTTP/1.1\r\n',
      `POST /api/gateway/address HTTP/1.1\r\nauthorization: Bearer ${gw.engine.adminToken}\r\n`,
    ]) {
      const s = connect(Number(port), '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      s.write(`${start}${head}\r\n{"model":"coder",`);
      await new Promise((r) => setTimeout(r, 100));
      s.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const lines = gw.log.lines;
    expect(lines.filter((l) => l.startsWith('error') || l.startsWith('warn'))).toEqual([]);
    expect(lines.some((l) => /^(debug|info) client closed .* upload/.test(l))).toBe(true);
    const metrics = await (await gw.admin('/metrics')).text();
    expect(metrics).toMatch(/breakwater_request_errors_total\{class="client_abort"\} 1/);
    // The gateway serves on.
    expect((await gw.admin('/api/health')).status).toBe(200);
  });
});
