import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer, type GatewayServer } from '../../src/main/engine/proxy/server';
import { captureLogger, startGateway, type TestGateway } from '../support/gateway';

const opened: Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
    opened.push(s);
  });
}

/** Everything the server sends until it closes the socket (or `ms` pass: then '(open)'). */
function readAll(s: Socket, ms = 5000): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const timer = setTimeout(() => resolve(`${out}(open)`), ms);
    s.on('data', (c: Buffer) => {
      out += c.toString('latin1');
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

async function raw(port: number, bytes: string): Promise<{ status: number; body: string }> {
  const s = await open(port);
  const answer = readAll(s);
  s.write(bytes);
  const text = await answer;
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

describe('defect 2: a client has a bounded time to send its request, and bounded sockets', () => {
  let gs: GatewayServer;
  let port: number;
  beforeAll(async () => {
    gs = createGatewayServer({
      host: '127.0.0.1',
      matchKey: () => null,
      log: captureLogger(),
      limits: { headersTimeoutMs: 400, requestTimeoutMs: 400, socketsPerAddress: 20 },
      // A long answer: the request timeout must not cut it.
      async proxy(req, res) {
        for await (const _ of req);
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 10; i++) {
          res.write('tick\n');
          await new Promise((r) => setTimeout(r, 100));
        }
        res.end('done\n');
      },
      async admin(_req, res) {
        res.end('{}');
      },
    });
    await new Promise<void>((r) => gs.server.listen(0, '127.0.0.1', () => r()));
    port = (gs.server.address() as AddressInfo).port;
  });
  afterAll(() => gs.close(0));

  it('trickled headers and a trickled body are cut with a 408 in the API error shape', async () => {
    const headers = await open(port);
    const headersAnswer = readAll(headers);
    headers.write('POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    const trickle = setInterval(() => headers.writable && headers.write('x-a: b\r\n'), 100);
    const body = await open(port);
    const bodyAnswer = readAll(body);
    body.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{',
    );
    const [h, b] = await Promise.all([headersAnswer, bodyAnswer]);
    clearInterval(trickle);
    for (const text of [h, b]) {
      expect(text).toMatch(/^HTTP\/1\.1 408/);
      expect(text).toContain('"code":"request_timeout"');
      expect(text).not.toContain('(open)');
    }
  });

  it('an answer that takes longer than the request timeout is not cut', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
    });
    expect(await res.text()).toMatch(/tick\n(.|\n)*done\n$/);
  });

  it('headers and the whole request are bounded at 30 s by default', () => {
    const { server } = createGatewayServer({
      host: '127.0.0.1',
      matchKey: () => null,
      log: captureLogger(),
      proxy: async () => {},
      admin: async () => {},
    });
    expect(server.headersTimeout).toBe(30_000);
    expect(server.requestTimeout).toBe(30_000);
  });

  it('one address holds at most the socket limit; the next gets a 503 and is closed', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => open(port)));
    const refused = await raw(port, 'GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('too_many_connections');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await raw(
      port,
      'GET /api/x HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
    );
    expect(again.status).toBe(200);
  });
});

describe('defect 2 and 8 on the real gateway: default timeouts, parse errors in the API shape', () => {
  let gw: TestGateway;
  let port: number;
  beforeAll(async () => {
    gw = await startGateway();
    port = Number(new URL(gw.url).port);
  });
  afterAll(() => gw.close());

  it('a 32 KB header is a 431, CL+TE, bad chunking and an unknown method a 400, each with a JSON error', async () => {
    const big = await raw(
      port,
      `GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(32 * 1024)}\r\n\r\n`,
    );
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body).error.code).toBe('request_header_fields_too_large');
    const post =
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n';
    for (const bad of [
      `${post}content-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      `${post}transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      'BREW /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
    ]) {
      const r = await raw(port, bad);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).error).toMatchObject({ type: 'invalid_request_error' });
    }
    expect((await fetch(`${gw.url}/api/health`)).status).toBe(200);
  });
});

describe('issue 27: slow headers are cut per socket, however many arrive together', () => {
  const HEADERS_MS = 1500;
  let gs: GatewayServer;
  let port: number;
  beforeAll(async () => {
    gs = createGatewayServer({
      host: '127.0.0.1',
      matchKey: () => null,
      log: captureLogger(),
      limits: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: 60_000, socketsPerAddress: 100 },
      async proxy(_req, res) {
        res.end('{}');
      },
      async admin(_req, res) {
        res.end('{}');
      },
    });
    port = await gs.listen('127.0.0.1', 0);
  });
  afterAll(() => gs.close(0));

  /**
   * `n` sockets opened at once, each silent for a second and then sending a header line every
   * 2 s: the header phase is bounded from the connection, by the gateway's own timer per socket
   * (Node's periodic check counts from the first byte, and was seen to miss sockets that arrive
   * together).
   */
  async function trickle(n: number): Promise<{ text: string; ms: number }[]> {
    return Promise.all(
      Array.from({ length: n }, async () => {
        const opened = Date.now();
        const s = await open(port);
        const answer = readAll(s, HEADERS_MS + 4000);
        const first = setTimeout(
          () => s.write('GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\n'),
          1000,
        );
        const lines = setInterval(() => s.writable && s.write('x-a: b\r\n'), 2000);
        const text = await answer;
        clearTimeout(first);
        clearInterval(lines);
        return { text, ms: Date.now() - opened };
      }),
    );
  }

  for (const n of [2, 20]) {
    it(`${n} sockets trickling headers together are each answered 408 and closed in time`, async () => {
      for (const { text, ms } of await trickle(n)) {
        expect(text).toMatch(/^HTTP\/1\.1 408/);
        expect(text).toContain('"code":"request_timeout"');
        expect(text).not.toContain('(open)');
        expect(ms).toBeLessThan(HEADERS_MS + 600);
      }
    });
  }

  it('a socket that never sends a byte is cut in time too; a prompt request is served', async () => {
    const opened = Date.now();
    const silent = await open(port);
    const answer = readAll(silent, HEADERS_MS + 4000);
    const prompt = await raw(
      port,
      'GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
    );
    expect(prompt.status).toBe(200);
    expect(await answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - opened).toBeLessThan(HEADERS_MS + 600);
  });
});
