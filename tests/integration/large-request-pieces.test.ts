import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytesIn, pooledBody, releaseBody } from '../../src/main/engine/proxy/pipeline/body-block';
import type { RequestContext } from '../../src/main/engine/proxy/pipeline/context';
import { startGateway, type TestGateway } from '../support/gateway';

// An agent-sized body whose model the gateway renames goes to the upstream as the client's bytes
// around the new ones, written piece by piece (wire/body-pieces.ts), not as one joined copy.
// These hold what the upstream receives to what a joined copy carried.

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

function body(kb: number, extra: Record<string, unknown> = {}): string {
  const turn = 'Rename `load()` — "quoted", C:\\path\n\ttab, émoji 🚀 ';
  const messages = Array.from({ length: Math.ceil((kb * 1024) / (turn.length * 8)) }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: turn.repeat(8),
  }));
  return JSON.stringify({ model: 'coder', messages, ...extra });
}

async function post(sent: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: sent,
  });
}

/** `sent` as the target that knows the combo's model as `model` must receive it. */
function renamed(sent: string, model: string): string {
  return sent.replace('"model":"coder"', `"model":"${model}"`);
}

/** Posts `sent` in pieces of 100 bytes, with a pause every 10 KB, and reads the answer. */
function inPieces(sent: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': sent.length },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    void (async () => {
      for (let at = 0; at < sent.length; at += 100) {
        req.write(sent.subarray(at, at + 100));
        if (at % 10_000 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      req.end();
    })();
  });
}

/** Posts `sent` and reads its answer whole (a stream's as text), which must be a success. */
async function answered(sent: string, stream = false): Promise<void> {
  const res = await post(sent);
  expect(res.status).toBe(200);
  await (stream ? res.text() : res.json());
}

describe('an agent-sized body sent in pieces', () => {
  it('reaches the target that failed and then the next one byte for byte, with its length', async () => {
    gw.primary.script({ status: 503 });
    const sent = body(150);
    await answered(sent);
    const first = gw.primary.requests[0]!;
    const second = gw.backup.requests[0]!;
    expect(first.rawBody).toBe(renamed(sent, 'gpt-test'));
    expect(second.rawBody).toBe(renamed(sent, 'gpt-backup'));
    expect(Number(second.headers['content-length'])).toBe(Buffer.byteLength(second.rawBody));
  });

  it('a connection reset by the first target: the next still gets the whole body', async () => {
    gw.primary.script({ resetBeforeHeaders: true });
    const sent = body(1024);
    await answered(sent);
    expect(gw.backup.requests[0]!.rawBody).toBe(renamed(sent, 'gpt-backup'));
  });

  it('carries the members the gateway puts in front (a stream that did not ask for usage)', async () => {
    const sent = body(100, { stream: true });
    await answered(sent, true);
    const received = gw.primary.requests[0]!.rawBody;
    expect(received).toBe(
      `{"stream_options":{"include_usage":true},${renamed(sent.slice(1), 'gpt-test')}`,
    );
  });

  it('a body of several megabytes goes whole, past the socket’s buffer', async () => {
    const sent = body(3 * 1024);
    await answered(sent);
    expect(gw.primary.requests[0]!.rawBody).toBe(renamed(sent, 'gpt-test'));
  });

  it('concurrent agent-sized requests each reach the upstream whole', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => body(70 + i * 10, { user: `u${i}` }));
    await Promise.all(bodies.map((b) => answered(b)));
    const received = new Set(gw.primary.requests.map((r) => r.rawBody));
    for (const b of bodies) expect(received.has(renamed(b, 'gpt-test'))).toBe(true);
  });

  // Bodies that arrive in several chunks are joined into blocks handed from one request to the
  // next (proxy/pipeline/body-block.ts); a block keeps the bytes of the larger body before it.
  it('bodies joined into reused blocks reach the upstream as sent, in turn and side by side', async () => {
    const bodies = [220, 130, 40, 180, 20, 250, 129].map((kb, i) => body(kb, { user: `c${i}` }));
    for (const b of bodies) await answered(b);
    await Promise.all(bodies.map((b) => answered(b)));
    const received = gw.primary.requests.map((r) => r.rawBody);
    const expected = bodies.map((b) => renamed(b, 'gpt-test'));
    expect(received.slice(0, bodies.length)).toEqual(expected);
    expect(received.slice(bodies.length).sort()).toEqual([...expected].sort());
  });

  // A stream lets its block go once the answer is committed and keeps the chunks for a
  // continuation (context.ts `committed`): the continuation must still carry the conversation.
  it('a stream of an agent-sized request, cut and continued: the continuation carries it', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen';
    gw.primary.script(
      { text, byWords: true, resetAfterChunks: 5 },
      { finish: { text }, byWords: true },
    );
    const sent = body(150, { stream: true, user: 'cut' });
    const res = await post(sent);
    expect(res.status).toBe(200);
    const events = (await res.text()).split('\n').filter((l) => l.startsWith('data: {'));
    const content = events
      .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(content).toBe(text);
    expect(gw.primary.requests).toHaveLength(2);
    const conversation = (JSON.parse(sent) as { messages: unknown[] }).messages;
    const continued = gw.primary.requests[1]!.body as { messages: unknown[] };
    expect(continued.messages.slice(0, conversation.length)).toEqual(conversation);
  });

  it('a body written in a thousand small pieces reaches the upstream whole', async () => {
    const sent = Buffer.from(body(100, { user: 'slow' }));
    const { status } = await inPieces(sent);
    expect(status).toBe(200);
    expect(gw.primary.requests[0]!.rawBody).toBe(renamed(sent.toString('utf8'), 'gpt-test'));
  });

  it('a body refused at the front door after it was read (paused) gives its block back', async () => {
    // One block of the 128 KB class (64-128 KB) taken and given back: the next body of that
    // class gets it; `body(70)` is about 92 KB.
    const size = 100 * 1024;
    const own = [Buffer.alloc(size / 2, 1), Buffer.alloc(size / 2, 2)];
    const held = pooledBody(own, size)!;
    const block = held.block;
    releaseBody({ pooled: held, raw: bytesIn(held, size) } as unknown as RequestContext);
    expect((await gw.admin('/api/gateway/pause', { method: 'POST' })).status).toBe(200);
    try {
      const answer = await inPieces(Buffer.from(body(70, { user: 'paused' })));
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text).error.code).toBe('gateway_paused');
    } finally {
      await gw.admin('/api/gateway/resume', { method: 'POST' });
    }
    expect(gw.primary.requests).toHaveLength(0);
    const next = pooledBody(own, size)!;
    expect(next.block).toBe(block);
    releaseBody({ pooled: next, raw: bytesIn(next, size) } as unknown as RequestContext);
  });
});
