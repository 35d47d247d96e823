import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/shared/contract';
import { DEFAULT_REPLY_TEXT } from '../support/fake-upstream';
import { eventually } from '../support/gateway';
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
  });

  it('a slow stream whose content comes every 250 ms is served whole', async () => {
    h.gw.primary.script(SLOW_CONTENT);
    const { res } = await stream('/v1/chat/completions', 'oa/gpt-test');
    const body = await res.text();
    expect(chatText(body)).toBe(DEFAULT_REPLY_TEXT);
    expect(body).not.toContain('"error"');
    expect(await lastRow()).toMatchObject({ status: 200, errorClass: null });
  });

  it('switched off (streamRecovery.contentIdle=false), heartbeats keep the stream alive as bytes do', async () => {
    h.gw.engine.admin.updateSettings({ 'streamRecovery.contentIdle': false });
    h.gw.primary.script({ heartbeats: { count: 16, everyMs: 50 } });
    const { res } = await stream('/v1/chat/completions', 'oa/gpt-test');
    expect(chatText(await res.text())).toBe(DEFAULT_REPLY_TEXT);
  });
});
