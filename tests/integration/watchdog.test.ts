import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineEvent, RequestLogEntry } from '../../src/shared/contract';
import { DEFAULT_REPLY_TEXT } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

// Small settings so a trip happens within a second: warm-up 300 ms, then a 500 ms window that
// must carry 200 B/s (100 bytes) of text.
const SMALL = {
  'streamRecovery.throughputWatchdog': true,
  'streamRecovery.warmupMs': 300,
  'streamRecovery.windowMs': 500,
  'streamRecovery.minBytesPerSecond': 200,
  'streamRecovery.minMeasurableBytes': 50,
};
const HEARTBEATS_ONLY = { heartbeats: { count: 40, everyMs: 50 } }; // 2 s of nothing useful
const TRICKLE = { text: 'x'.repeat(60), chunks: 60, chunkDelayMs: 50 }; // ~20 B/s of text

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  // These rules are about a stream that is not continued (continuation: stream-continuation.test.ts).
  gw = await startGateway({
    env: {
      BREAKWATER_STREAM_THROUGHPUT_WATCHDOG_ENABLED: 'true',
      BREAKWATER_STREAM_CONTINUATION: 'false',
    },
  });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
  gw.engine.admin.updateResilienceSettings(SMALL);
  events.length = 0;
});

async function stream(path: string, model: string): Promise<Response> {
  const anthropic = path === '/v1/messages';
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(anthropic ? { 'anthropic-version': '2023-06-01' } : {}),
    },
    body: JSON.stringify({
      model,
      stream: true,
      ...(anthropic ? { max_tokens: 100 } : {}),
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
}

function chatText(body: string): string {
  let out = '';
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const ev = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
    out += ev.choices?.[0]?.delta?.content ?? '';
  }
  return out;
}

async function logRows(n: number): Promise<RequestLogEntry[]> {
  const rows = () =>
    events.flatMap((e) => (e.type === 'request.completed' ? [e.entry as RequestLogEntry] : []));
  await eventually(() => rows().length >= n);
  await new Promise((r) => setTimeout(r, 50)); // no second row follows
  return rows();
}

async function breakerFailures(provider: string): Promise<number> {
  const health = (await (await gw.admin('/api/monitoring/health')).json()) as {
    breakers: Array<{ provider: string; failureCount: number }>;
  };
  return health.breakers.find((b) => b.provider === provider)?.failureCount ?? 0;
}

describe('§6 a trip before any byte reached the client starts the request again', () => {
  it('Chat: a heartbeat-only stream is cut and the retry is served normally', async () => {
    gw.primary.script(HEARTBEATS_ONLY, {});
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(chatText(body)).toBe(DEFAULT_REPLY_TEXT);
    expect(body).not.toContain('keep-alive'); // the cut attempt's bytes never reached the client
    expect(body).not.toContain('error');
    expect(res.headers.get('x-breakwater-decision')).toMatch(/throughput watchdog.*attempt 2/);
    expect(gw.primary.requestCount).toBe(2);
    const rows = await logRows(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 200, errorClass: null });
    // Breakwater's own stream handling is not a provider failure.
    expect(await breakerFailures('oa')).toBe(0);
    expect(events.some((e) => e.type === 'connection.cooldown')).toBe(false);
  });

  it('Anthropic: a stream of pings is cut and retried', async () => {
    gw.primary.script(HEARTBEATS_ONLY, {});
    const res = await stream('/v1/messages', 'an/claude-test');
    const body = await res.text();
    expect(res.status).toBe(200);
    // Only the served stream's own opening ping; none of the 40 of the cut attempt.
    expect(body.match(/event: ping/g)).toHaveLength(1);
    expect(body).toContain('message_stop');
    expect(gw.primary.requestCount).toBe(2);
    expect(await logRows(1)).toHaveLength(1);
  });

  it('the retries are bounded (2): a third trip moves on and ends in a 504', async () => {
    gw.primary.script(HEARTBEATS_ONLY, HEARTBEATS_ONLY, HEARTBEATS_ONLY, {});
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(res.status).toBe(504);
    const err = (await res.json()) as { error: { code: string } };
    expect(err.error.code).toBe('upstream_throughput_too_low');
    expect(gw.primary.requestCount).toBe(3);
    const rows = await logRows(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 504, errorClass: 'throughput_watchdog' });
    expect(await breakerFailures('oa')).toBe(0);
  });
});

describe('§6 a trip after bytes were committed ends the stream with an error event', () => {
  it('Chat: the trickle is cut, never replayed, and ends with a well-formed error', async () => {
    gw.primary.script(TRICKLE, {});
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(res.status).toBe(200);
    const body = await res.text();
    const last = body.trim().split('\n\n').at(-1)!;
    expect(last.startsWith('data: ')).toBe(true);
    const err = JSON.parse(last.slice(6)) as { error: { code: string; type: string } };
    expect(err.error).toMatchObject({ code: 'upstream_throughput_too_low', type: 'timeout_error' });
    expect(chatText(body).length).toBeGreaterThan(0);
    expect(chatText(body).length).toBeLessThan(60);
    expect(gw.primary.requestCount).toBe(1);
    const rows = await logRows(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 200, errorClass: 'throughput_watchdog' });
    expect(await breakerFailures('oa')).toBe(0);
  });

  it('translated (Anthropic client, Chat provider): the error event is in Anthropic form', async () => {
    gw.primary.script(TRICKLE);
    const res = await stream('/v1/messages', 'oa/gpt-test');
    const body = await res.text();
    const last = body.trim().split('\n\n').at(-1)!;
    expect(last).toMatch(/^event: error\ndata: /);
    const err = JSON.parse(last.split('\ndata: ')[1]!) as { type: string; error: { code: string } };
    expect(err).toMatchObject({ type: 'error', error: { code: 'upstream_throughput_too_low' } });
    expect(body).toContain('text_delta');
    expect(gw.primary.requestCount).toBe(1);
  });
});

describe('§6 healthy streams are untouched', () => {
  it('a fast stream is relayed whole on the first attempt', async () => {
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(chatText(body)).toBe(DEFAULT_REPLY_TEXT);
    expect(body.trim().endsWith('data: [DONE]')).toBe(true);
    expect(res.headers.get('x-breakwater-decision')).not.toMatch(/watchdog/);
    expect(gw.primary.requestCount).toBe(1);
  });

  it('a paced stream above the rate runs past warm-up and window uncut', async () => {
    const text = 'abcdefghij'.repeat(100); // 1000 bytes over ~1.2 s: ~800 B/s
    gw.primary.script({ text, chunks: 25, chunkDelayMs: 45 });
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(chatText(body)).toBe(text);
    expect(gw.primary.requestCount).toBe(1);
  });

  it('the idle timeout stays independent: a silent stream still fails on it', async () => {
    // The watchdog stays on but with a window far beyond the idle timeout, so a loaded machine
    // that delays timers cannot let the watchdog's check come first.
    await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'timeouts.idleMs': 200, 'streamRecovery.windowMs': 10_000 }),
    });
    try {
      gw.primary.script({ chunks: 3, stallAfterChunks: 1 });
      const res = await stream('/v1/chat/completions', 'oa/gpt-test');
      const body = await res.text();
      expect(body).toContain('upstream_stream_interrupted');
      expect(gw.primary.requestCount).toBe(1);
    } finally {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'timeouts.idleMs': 120_000, 'streamRecovery.windowMs': 500 }),
      });
    }
  });
});

describe('§6 with the watchdog off nothing changes', () => {
  beforeEach(() => {
    gw.engine.admin.updateResilienceSettings({ 'streamRecovery.throughputWatchdog': false });
  });

  it('heartbeats pass through and the stream is served on one attempt', async () => {
    gw.primary.script({ heartbeats: { count: 20, everyMs: 50 } }, {});
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(body).toContain(': keep-alive');
    expect(chatText(body)).toBe(DEFAULT_REPLY_TEXT);
    expect(gw.primary.requestCount).toBe(1);
  });

  it('a trickle runs to its end', async () => {
    gw.primary.script({ ...TRICKLE, chunks: 30, text: 'x'.repeat(30) });
    const res = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(chatText(body)).toBe('x'.repeat(30));
    expect(body).not.toContain('error');
    const rows = await logRows(1);
    expect(rows[0]).toMatchObject({ status: 200, errorClass: null });
  });
});
