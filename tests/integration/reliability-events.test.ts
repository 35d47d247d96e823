import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BACKLOG_BYTES, streamEvents } from '../../src/main/engine/admin/event-stream';
import type { EngineEvent, Snapshot } from '../../src/shared/contract';
import { startGateway, type TestGateway } from '../support/gateway';

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

describe('defect 4: an /api/events subscriber that stops reading is dropped, not buffered', () => {
  const listeners = new Set<(e: EngineEvent) => void>();
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) =>
      streamEvents(req, res, {
        snapshot: () => ({}) as Snapshot,
        onEvent(l) {
          listeners.add(l);
          return () => listeners.delete(l);
        },
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('after 12 MiB of events to a stalled reader, it gets its backlog and a last subscriber.dropped', async () => {
    const s = await openSocket(port);
    s.write('GET /api/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    s.pause();
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 192; i++) {
      for (const l of listeners)
        l({ type: 'gateway.paused', at: i, pad: big } as unknown as EngineEvent);
      if (i % 32 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(listeners.size).toBe(0); // unsubscribed: nothing more is kept for it
    let received = 0;
    let tail = '';
    const done = new Promise<void>((resolve) => {
      s.on('data', (c: Buffer) => {
        received += c.length;
        tail = (tail + c.toString('latin1')).slice(-2000);
      });
      s.on('close', () => resolve());
      s.on('end', () => resolve());
    });
    s.resume();
    await done;
    s.destroy();
    // The socket buffers on both ends (a few MiB on loopback) plus the backlog, not all 12 MiB.
    expect(received).toBeLessThan(8 * 1024 * 1024 + EVENT_BACKLOG_BYTES);
    expect(tail).toContain('event: subscriber.dropped');
  });

  it('a subscriber that keeps reading gets every event', async () => {
    const s = await openSocket(port);
    s.write('GET /api/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    let text = '';
    s.on('data', (c: Buffer) => {
      text += c.toString('latin1');
    });
    await new Promise((r) => setTimeout(r, 100));
    const pad = 'y'.repeat(8 * 1024);
    for (let i = 0; i < 400; i++) {
      for (const l of listeners)
        l({ type: 'gateway.resumed', at: i, pad } as unknown as EngineEvent);
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 300));
    s.destroy();
    expect(text.match(/event: gateway\.resumed/g)?.length).toBe(400);
    expect(text).not.toContain('subscriber.dropped');
  });
});

describe('defect 8: an admin 413 closes the connection', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('a declared body over the limit is refused and the connection closed, not left waiting for it', async () => {
    const s = await openSocket(Number(new URL(gw.url).port));
    let text = '';
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    s.on('data', (c: Buffer) => {
      text += c.toString('latin1');
    });
    s.write(
      `POST /api/providers HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${gw.engine.adminToken}\r\ncontent-type: application/json\r\ncontent-length: ${1024 ** 3}\r\n\r\n{"id":`,
    );
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    const closedByServer = s.destroyed || s.readableEnded;
    s.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(closedByServer).toBe(true);
  });
});
