import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY_TEXT } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
let openai: OpenAI;
const messages = [{ role: 'user' as const, content: 'hi' }];

beforeAll(async () => {
  gw = await startGateway();
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

async function post(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, ...extra }),
  });
}

describe('combo with the priority strategy', () => {
  it('fails over to the next target when the first answers 503', async () => {
    gw.primary.script({ status: 503 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'coder', messages })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe(DEFAULT_REPLY_TEXT);
    expect(gw.primary.requests).toHaveLength(1);
    expect(gw.backup.requests).toHaveLength(1);
    expect(gw.backup.requests[0]!.body.model).toBe('gpt-backup');
    expect(response.headers.get('x-breakwater-connection')).toBe('oa2-1');
    expect(response.headers.get('x-breakwater-decision')).toMatch(
      /oa\/gpt-test@oa-1 failed \(HTTP 503, server_error\).*oa2\/gpt-backup@oa2-1 served/,
    );
  });

  it('fails over on a network failure before any byte, and logs the request as a success', async () => {
    gw.primary.script({ resetBeforeHeaders: true });
    const res = await openai.chat.completions.create({
      model: 'coder',
      messages,
      user: 'net-failover',
    });
    expect(res.choices[0]?.message.content).toBe(DEFAULT_REPLY_TEXT);
    expect(gw.backup.requests).toHaveLength(1);
    await eventually(async () => {
      const rows = (await (await gw.admin('/api/logs?limit=5')).json()) as Array<
        Record<string, unknown>
      >;
      const row = rows[0];
      return Boolean(
        row &&
          row.status === 200 &&
          row.errorClass === null &&
          String(row.decision).includes('failed (connection'),
      );
    });
  });

  it('fails over a streaming request whose upstream answers 502 before streaming', async () => {
    gw.primary.script({ status: 502 });
    const stream = await openai.chat.completions.create({ model: 'coder', messages, stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe(DEFAULT_REPLY_TEXT);
  });

  it('does not fail over on a plain 400: the client gets the upstream status in its own format', async () => {
    gw.primary.script({
      status: 400,
      body: { error: { message: 'messages: field required', type: 'invalid_request_error' } },
    });
    const res = await post('coder');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe('messages: field required');
    expect(gw.backup.requests).toHaveLength(0);
  });

  it('passes a 429 with its Retry-After through when no other target can serve', async () => {
    // Longer than comboCooldownWait.maxWaitMs, so the gateway answers instead of waiting.
    gw.primary.script({ status: 429, headers: { 'retry-after': '70' } });
    const res = await post('oa/gpt-test');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('70');
    expect(((await res.json()) as { error: { message: string } }).error.message).toBeTruthy();
  });

  it("passes the last target's 5xx through when every target failed", async () => {
    gw.primary.script({ status: 503 });
    gw.backup.script({
      status: 500,
      body: '<html>Internal Server Error</html>',
      headers: { 'content-type': 'text/html' },
    });
    const res = await post('coder');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toContain('provider oa2 answered HTTP 500');
  });

  it('answers 502 naming each failure when every target is unreachable', async () => {
    gw.primary.script({ resetBeforeHeaders: true });
    gw.backup.script({ resetBeforeHeaders: true });
    const res = await post('coder');
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('upstream_unreachable');
    expect(body.error.message).toContain('oa/gpt-test');
    expect(body.error.message).toContain('oa2/gpt-backup');
  });

  it('does not replay once bytes reached the client: a broken stream ends with an error event', async () => {
    // Without mid-stream continuation (stream-continuation.test.ts covers it on).
    await continuation(false);
    try {
      gw.primary.script({ chunks: 6, resetAfterChunks: 2 });
      const res = await post('coder', { stream: true });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('upstream_stream_interrupted');
      expect(gw.backup.requests).toHaveLength(0);
    } finally {
      await continuation(null);
    }
  });
});

describe('upstream timeouts', () => {
  it('gives up on a provider that sends no headers within the first-byte timeout and fails over', async () => {
    await gw.admin('/api/providers/oa', {
      method: 'PUT',
      body: JSON.stringify({
        format: 'openai',
        baseUrl: `${gw.primary.url}/v1`,
        models: ['gpt-test', 'gpt-shared'],
        timeouts: { firstByteMs: 200 },
      }),
    });
    try {
      gw.primary.script({ delayMs: 2000 });
      const started = Date.now();
      const res = await post('coder');
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(res.headers.get('x-breakwater-decision')).toContain(
        'no response headers before the first-byte timeout',
      );
    } finally {
      await gw.admin('/api/providers/oa', {
        method: 'PUT',
        body: JSON.stringify({
          format: 'openai',
          baseUrl: `${gw.primary.url}/v1`,
          models: ['gpt-test', 'gpt-shared'],
        }),
      });
    }
  });

  it('ends a stream that goes silent past the idle timeout with an error event', async () => {
    await gw.admin('/api/settings', {
      method: 'PATCH',
      // Without mid-stream continuation (stream-continuation.test.ts covers it on).
      body: JSON.stringify({ 'timeouts.idleMs': 300, 'streamContinuation.enabled': false }),
    });
    try {
      gw.primary.script({ chunks: 5, stallAfterChunks: 2 });
      const started = Date.now();
      const res = await post('oa/gpt-test', { stream: true });
      const text = await res.text();
      expect(Date.now() - started).toBeLessThan(3000);
      expect(text).toContain('upstream_stream_interrupted');
      expect(text).toContain('idle timeout');
    } finally {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'timeouts.idleMs': null, 'streamContinuation.enabled': null }),
      });
    }
  });
});

function continuation(enabled: boolean | null): Promise<Response> {
  return gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({ 'streamContinuation.enabled': enabled }),
  });
}
