import { request } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
const messages = [{ role: 'user', content: 'hi' }];

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());
beforeEach(() => gw.primary.reset());

/** Raw HTTP so tests control every header (fetch forbids setting Host). */
function raw(
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: opts.method ?? 'POST',
        headers: opts.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function expectHealthy(): Promise<void> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-test', messages }),
  });
  expect(res.status).toBe(200);
}

const json = { 'content-type': 'application/json' };

describe("bad input gets a clear error in the caller's format and leaves the server healthy", () => {
  it('malformed JSON → 400 invalid_json (OpenAI format)', async () => {
    const res = await raw('/v1/chat/completions', { headers: json, body: '{"model": "gpt-test",' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: 'invalid_json', type: 'invalid_request_error' },
    });
    await expectHealthy();
  });

  it('malformed JSON on /v1/messages → 400 in Anthropic format', async () => {
    const res = await raw('/v1/messages', { headers: json, body: 'not json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
  });

  it('a body without model → 400 naming the field', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: json,
      body: JSON.stringify({ messages }),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: 'missing_model', param: 'model' },
    });
  });

  it('wrong content type → 415', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.body).error.message).toContain('application/json');
    await expectHealthy();
  });

  it('oversized body → 413 as soon as Content-Length shows it, without reading the body', async () => {
    const url = new URL(gw.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { ...json, 'content-length': String(33 * 1024 * 1024) },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () =>
            resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
        },
      );
      req.on('error', reject);
      // Only the first kilobyte is ever sent: the answer must not wait for the rest.
      req.write(Buffer.alloc(1024, 0x61));
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('request_too_large');
    await expectHealthy();
  });

  it('oversized chunked body (no Content-Length) is refused before it is all read', async () => {
    const url = new URL(gw.url);
    const MB = 1024 * 1024;
    const total = 40;
    let sent = 0;
    // The gateway answers 413 and closes the socket; a client still writing may see that
    // close (EPIPE/ECONNRESET) before it reads the 413. Either way it must come long before
    // the whole body was sent.
    const outcome = await new Promise<{ status: number } | { error: string }>((resolve) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: json,
        },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      const chunk = Buffer.alloc(MB, 0x61);
      const pump = () => {
        while (sent < total) {
          sent++;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    if ('status' in outcome) expect(outcome.status).toBe(413);
    else expect(['EPIPE', 'ECONNRESET']).toContain(outcome.error);
    expect(sent).toBeLessThan(total);
    await expectHealthy();
  });

  it('unknown model → 404 listing where it looked', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: json,
      body: JSON.stringify({ model: 'nope', messages }),
    });
    expect(res.status).toBe(404);
    const err = JSON.parse(res.body).error;
    expect(err.code).toBe('model_not_found');
    expect(err.message).toContain('combos (coder, claude)');
    expect(err.message).toContain('providers: oa, oa2, an');
  });

  it('unknown model on /v1/messages → 404 in Anthropic format', async () => {
    const res = await raw('/v1/messages', {
      headers: json,
      body: JSON.stringify({ model: 'nope', max_tokens: 5, messages }),
    });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', code: 'model_not_found' },
    });
  });

  it('a bare model listed by two providers → 400 ambiguous_model', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: json,
      body: JSON.stringify({ model: 'gpt-shared', messages }),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('ambiguous_model');
  });

  it('an Anthropic request for an OpenAI-format provider is translated, not refused', async () => {
    const res = await raw('/v1/messages', {
      headers: json,
      body: JSON.stringify({ model: 'gpt-test', max_tokens: 5, messages }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ type: 'message', role: 'assistant' });
    expect(gw.primary.requests.at(-1)!.path).toBe('/v1/chat/completions');
  });

  it('a foreign Origin → 403', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: { ...json, origin: 'https://evil.example' },
      body: JSON.stringify({ model: 'gpt-test', messages }),
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error.code).toBe('forbidden_origin');
    expect(gw.primary.requests).toHaveLength(0);
    await expectHealthy();
  });

  it('a Host that is not this gateway (DNS rebinding) → 403, also on the admin API', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: { ...json, host: 'attacker.example:4141' },
      body: JSON.stringify({ model: 'gpt-test', messages }),
    });
    expect(res.status).toBe(403);
    const admin = await raw('/api/state', {
      method: 'GET',
      headers: { host: 'attacker.example', authorization: `Bearer ${gw.engine.adminToken}` },
    });
    expect(admin.status).toBe(403);
    await expectHealthy();
  });

  it('unknown endpoint → 404; GET on a POST endpoint → 405', async () => {
    expect((await raw('/v1/embeddings', { headers: json, body: '{}' })).status).toBe(404);
    const get = await raw('/v1/chat/completions', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('client abort', () => {
  it('cancels the upstream request at once when the client disconnects mid-stream', async () => {
    gw.primary.script({ chunks: 10, stallAfterChunks: 1 });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const controller = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    const aborted = gw.primary.waitForAbort(2000);
    for await (const _chunk of stream) {
      controller.abort();
      break;
    }
    const rec = await aborted;
    expect(rec.aborted).toBe(true);
    await expectHealthy();
    const rows = (await (await gw.admin('/api/logs?limit=10')).json()) as Array<{
      errorClass: string | null;
      status: number;
    }>;
    expect(rows.some((r) => r.errorClass === 'client_abort' && r.status === 499)).toBe(true);
  });

  it('cancels the upstream request when the client gives up while waiting for headers', async () => {
    gw.primary.script({ delayMs: 5000 });
    const controller = new AbortController();
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'gpt-test', messages }),
      signal: controller.signal,
    }).catch(() => null);
    await gw.primary.waitForRequests(1);
    const aborted = gw.primary.waitForAbort(2000);
    controller.abort();
    await pending;
    expect((await aborted).aborted).toBe(true);
  });
});

/** Reads a response slowly: a pause of `pauseMs` after the first chunk, then the rest. */
function slowRead(
  path: string,
  body: string,
  pauseMs: number,
): Promise<{ status: number; body: Buffer; contentType: unknown }> {
  const url = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: 'POST', headers: json },
      (res) => {
        const chunks: Buffer[] = [];
        let paused = false;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          if (paused) return;
          paused = true;
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            contentType: res.headers['content-type'],
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a client that reads slowly (backpressure through the relay)', () => {
  it('gets a 12 MB answer whole, byte for byte, after holding the stream still', async () => {
    const answer = {
      id: 'chatcmpl-big',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-test',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'x'.repeat(12 * 1024 * 1024) } },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    };
    gw.primary.script({ body: answer });
    const res = await slowRead(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-test', messages }),
      300,
    );
    expect(res.status).toBe(200);
    expect(res.body.equals(Buffer.from(JSON.stringify(answer)))).toBe(true);
    await expectHealthy();
  });

  it('gets every event of a long stream in order after holding it still', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i} `).join('');
    gw.primary.script({ text, chunks: 3000 });
    const res = await slowRead(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-test', messages, stream: true }),
      300,
    );
    expect(res.status).toBe(200);
    expect(String(res.contentType)).toContain('text/event-stream');
    const events = res.body
      .toString('utf8')
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as { choices: Array<{ delta: { content?: string } }> });
    const relayed = events.map((e) => e.choices[0]?.delta.content ?? '').join('');
    expect(relayed).toBe(text);
    expect(res.body.toString('utf8').trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
