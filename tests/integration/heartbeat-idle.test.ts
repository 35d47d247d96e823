import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/shared/contract';
import { DEFAULT_REPLY_TEXT } from '../support/fake-upstream';
import { eventually } from '../support/gateway';
import { validateStreamEvent } from '../support/open-responses-schema';
import { shapeHarness } from './shape-harness';

// The idle timeout that heartbeats do not reset (RESILIENCE.md §6): 500 ms here, so a stream of
// heartbeats for 2 s is cut, and one whose content comes every 250 ms is not.
const IDLE_MS = 500;
const HEARTBEATS_ONLY = { heartbeats: { count: 40, everyMs: 50 } };
const SLOW_CONTENT = { heartbeats: { count: 3, everyMs: 50 }, chunks: 6, chunkDelayMs: 250 };

const h = shapeHarness((gw) =>
  gw.engine.admin.updateSettings({
    'timeouts.idleMs': IDLE_MS,
    'streamRecovery.contentIdle': null,
  }),
);

async function stream(path: string, model: string): Promise<{ res: Response; ms: number }> {
  const anthropic = path === '/v1/messages';
  const started = Date.now();
  const res = await fetch(`${h.gw.url}${path}`, {
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
  return { res, ms: Date.now() - started };
}

/** Every SSE event of a body: its name and parsed data (`[DONE]` as a string). */
function sseEvents(body: string): { event: string | null; data: unknown }[] {
  return body
    .split(/\n\n/)
    .filter((block) => block.split('\n').some((l) => l.startsWith('data:')))
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? null;
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

function chatText(body: string): string {
  return sseEvents(body)
    .map((e) => (e.data as { choices?: { delta?: { content?: string } }[] }).choices?.[0])
    .map((c) => c?.delta?.content ?? '')
    .join('');
}

/**
 * The events of a Responses stream conform (only the relay's own last one when the upstream's are
 * passed through as they came), and the error that ends it is numbered next.
 */
function expectConformingResponsesEnd(body: string, passthrough = false): void {
  const events = sseEvents(body);
  for (const [i, e] of events.entries()) {
    if (passthrough && i < events.length - 1) continue;
    expect(validateStreamEvent(e.data), `event ${i} (${e.event})`).toEqual([]);
  }
  const numbers = events.map((e) => (e.data as { sequence_number: number }).sequence_number);
  expect(numbers).toEqual(numbers.map((_, i) => i));
  expect(events.at(-1)!.event).toBe('error');
}

async function lastRow(): Promise<RequestLogEntry> {
  const rows = () =>
    h.events.flatMap((e) => (e.type === 'request.completed' ? [e.entry as RequestLogEntry] : []));
  await eventually(() => rows().length >= 1);
  return rows().at(-1)!;
}

describe('the idle timeout counts content, not heartbeats', () => {
  it('Chat: a stream of keep-alive comments is cut at the idle timeout with a Chat error event', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const started = Date.now();
    const { res } = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(res.status).toBe(200);
    const body = await res.text();
    const took = Date.now() - started;
    // Cut after the timeout (never early), well before the 2 s of heartbeats ran out.
    expect(took).toBeGreaterThanOrEqual(IDLE_MS);
    expect(took).toBeLessThan(1_500);
    const last = sseEvents(body).at(-1)!;
    expect(last.event).toBeNull();
    expect(last.data).toMatchObject({
      error: { code: 'upstream_stream_interrupted', message: expect.stringMatching(/heartbeats/) },
    });
    expect(chatText(body)).toBe('');
    expect(await lastRow()).toMatchObject({ errorClass: 'stream_timeout_idle' });
  });

  it('Anthropic: a stream of pings is cut with an Anthropic error event', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const { res } = await stream('/v1/messages', 'an/claude-test');
    const body = await res.text();
    const last = sseEvents(body).at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
    expect(body).not.toContain('message_stop');
    expect(await lastRow()).toMatchObject({ errorClass: 'stream_timeout_idle' });
  });

  it('translated: pings of an Anthropic upstream cut a Responses client with a Responses error event', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const res = await fetch(`${h.gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'an/claude-test', stream: true, input: 'hi' }),
    });
    const body = await res.text();
    const last = sseEvents(body).at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/heartbeats/),
    });
    expectConformingResponsesEnd(body);
  });

  it('Responses passthrough: the cut ends with an Open Responses error event numbered after the last', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const res = await fetch(`${h.gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa/gpt-test', stream: true, input: 'hi' }),
    });
    const body = await res.text();
    expect(sseEvents(body).at(-1)!.data).toMatchObject({
      error: { code: 'upstream_stream_interrupted', message: expect.stringMatching(/heartbeats/) },
    });
    expectConformingResponsesEnd(body, true);
    expect(await lastRow()).toMatchObject({ errorClass: 'stream_timeout_idle' });
  });

  it('translated: keep-alives of an OpenAI upstream cut a Gemini client with a Gemini error', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const res = await fetch(`${h.gw.url}/v1beta/models/coder:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const last = sseEvents(await res.text()).at(-1)!;
    expect(last.event).toBeNull();
    expect(last.data).toMatchObject({
      error: { code: 502, status: 'INTERNAL', message: expect.stringMatching(/heartbeats/) },
    });
  });

  it('translated: pings of an Anthropic upstream cut a Chat client with a Chat error event', async () => {
    h.gw.primary.script(HEARTBEATS_ONLY);
    const { res } = await stream('/v1/chat/completions', 'an/claude-test');
    const last = sseEvents(await res.text()).at(-1)!;
    expect(last.event).toBeNull();
    expect(last.data).toMatchObject({
      error: { code: 'upstream_stream_interrupted', type: 'api_error' },
    });
  });

  it('a slow stream whose content comes every 250 ms is served whole', async () => {
    h.gw.primary.script(SLOW_CONTENT);
    const { res } = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(chatText(body)).toBe(DEFAULT_REPLY_TEXT);
    expect(body).not.toContain('"error"');
    expect(await lastRow()).toMatchObject({ status: 200, errorClass: null });
  });

  it('slow streams to Responses and Anthropic clients are served whole too', async () => {
    h.gw.primary.script(SLOW_CONTENT, SLOW_CONTENT);
    const responses = await fetch(`${h.gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa/gpt-test', stream: true, input: 'hi' }),
    });
    const events = sseEvents(await responses.text());
    expect(events.at(-1)!.event).toBe('response.completed');
    const { res } = await stream('/v1/messages', 'an/claude-test');
    const body = await res.text();
    expect(body).toContain('message_stop');
    expect(body).not.toContain('event: error');
  });

  it('switched off (streamRecovery.contentIdle=false), heartbeats keep the stream alive as bytes do', async () => {
    h.gw.engine.admin.updateSettings({ 'streamRecovery.contentIdle': false });
    h.gw.primary.script({ heartbeats: { count: 16, everyMs: 50 } });
    const { res } = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(chatText(await res.text())).toBe(DEFAULT_REPLY_TEXT);
  });
});
