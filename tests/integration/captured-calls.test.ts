import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayResult, RequestLogDetail, RequestLogEntry } from '../../src/shared/contract';
import {
  ANTHROPIC_KEY,
  OPENAI_KEY,
  OPENAI_KEY_2,
  standardConfig,
  startGateway,
  type TestGateway,
} from '../support/gateway';

// Captured calls (issue 33): what each attempt sent and got, redacted, and its replay.
const GATEWAY_KEY = 'bw-test-gateway-key-0123456789abcdef';
const SECRETS = [OPENAI_KEY, OPENAI_KEY_2, ANTHROPIC_KEY, GATEWAY_KEY];

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    config: (p, b) => ({
      ...standardConfig(p, b),
      gateway: { apiKeys: [{ name: 'agent', key: GATEWAY_KEY }] },
    }),
  });
});
afterAll(() => gw.close());
beforeEach(async () => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
  await settings({ 'requestLog.captureBodies': null, 'requestLog.captureMaxBytes': null });
});

async function settings(values: Record<string, unknown>): Promise<void> {
  const res = await gw.admin('/api/settings', { method: 'PATCH', body: JSON.stringify(values) });
  expect(res.status).toBe(200);
}

function chat(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function lastRow(): Promise<RequestLogEntry> {
  const rows = (await (await gw.admin('/api/logs?limit=1')).json()) as RequestLogEntry[];
  return rows[0]!;
}

async function detail(id: number): Promise<{ text: string; json: RequestLogDetail }> {
  const res = await gw.admin(`/api/logs/${id}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, json: JSON.parse(text) as RequestLogDetail };
}

function replay(id: number | string, body?: unknown): Promise<Response> {
  return gw.admin(`/api/logs/${id}/replay`, {
    method: 'POST',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

const failing = (echo: string) => ({
  status: 500,
  body: { error: { message: `upstream broke; it saw ${echo}`, type: 'server_error' } },
});

describe('captured calls', () => {
  it('keeps both attempts of a combo that failed on both targets, with no secret anywhere', async () => {
    gw.primary.script(failing(OPENAI_KEY));
    gw.backup.script(failing(OPENAI_KEY_2));
    const res = await chat({
      model: 'coder',
      // A client that pastes its own key and a provider key into the prompt.
      messages: [{ role: 'user', content: `hello, my keys are ${GATEWAY_KEY} and ${OPENAI_KEY}` }],
    });
    expect(res.status).toBe(500);
    const row = await lastRow();
    const { text, json } = await detail(row.id);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(json.id).toBe(row.id);
    expect(json.status).toBe(500);
    expect(json.attempts.map((a) => [a.target, a.connection, a.status])).toEqual([
      ['oa/gpt-test', 'oa-1', 500],
      ['oa2/gpt-backup', 'oa2-1', 500],
    ]);
    const [first, second] = json.attempts;
    expect(first!.request.method).toBe('POST');
    expect(first!.request.url).toBe(`${gw.primary.url}/v1/chat/completions`);
    expect(second!.request.url).toBe(`${gw.backup.url}/v1/chat/completions`);
    expect(first!.request.headers.authorization).toBe('[redacted]');
    expect(JSON.parse(first!.request.body!).model).toBe('gpt-test');
    expect(JSON.parse(second!.request.body!).model).toBe('gpt-backup');
    expect(first!.request.body).toContain('hello, my keys are [redacted] and [redacted]');
    expect(first!.response!.status).toBe(500);
    expect(first!.response!.body).toContain('upstream broke; it saw [redacted]');
    expect(second!.response!.body).toContain('upstream broke');
    expect(first!.durationMs).toBeGreaterThanOrEqual(0);
    expect(first!.startedAt).toBeGreaterThanOrEqual(row.at);
    expect(json.client?.path).toBe('/v1/chat/completions');
    expect(json.client?.headers.authorization).toBe('[redacted]');
    expect(json.client?.body).toContain('"model":"coder"');

    // The provider is back: the replay is a new row, served.
    gw.resetResilience();
    const again = await replay(row.id);
    expect(again.status).toBe(200);
    const result = (await again.json()) as ReplayResult;
    expect(result.status).toBe(200);
    expect(result.id).toBeGreaterThan(row.id);
    const replayed = await detail(result.id);
    expect(replayed.json.status).toBe(200);
    expect(replayed.json.keyName).toBe('agent');
    expect(replayed.json.decision).toContain(`replay of request ${row.id}`);
    // A served request keeps no bodies by default.
    expect(replayed.json.attempts).toEqual([]);
    expect(replayed.json.client).toBeNull();
  });

  it('keeps no bodies of a successful request by default, and every one with "all"', async () => {
    expect(
      (await chat({ model: 'coder', messages: [{ role: 'user', content: 'hi' }] })).status,
    ).toBe(200);
    const quiet = await detail((await lastRow()).id);
    expect(quiet.json.attempts).toEqual([]);

    await settings({ 'requestLog.captureBodies': 'all' });
    const res = await chat({
      model: 'coder',
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    expect(res.status).toBe(200);
    await res.text();
    const { json } = await detail((await lastRow()).id);
    expect(json.attempts).toHaveLength(1);
    const body = json.attempts[0]!.response!.body!;
    expect(json.attempts[0]!.response!.headers['content-type']).toContain('text/event-stream');
    expect(body).toMatch(/^data: /);
    expect(body).toContain('[DONE]');
  });

  it('keeps an agent-sized body that went upstream in pieces whole, renamed and redacted', async () => {
    gw.primary.script(failing('x'));
    gw.backup.script(failing('y'));
    // Past 64 KB a renamed body goes upstream as pieces (wire/body-pieces.ts), joined only here.
    const turn = `edit the file; key ${OPENAI_KEY} — "quoted" 🚀 `;
    const messages = [{ role: 'user', content: turn.repeat(2000) }];
    expect((await chat({ model: 'coder', messages })).status).toBe(500);
    const { text, json } = await detail((await lastRow()).id);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const [first, second] = json.attempts;
    const redacted = turn.replace(OPENAI_KEY, '[redacted]').repeat(2000);
    for (const [attempt, model] of [
      [first, 'gpt-test'],
      [second, 'gpt-backup'],
    ] as const) {
      expect(attempt!.request.truncated).toBe(false);
      expect(JSON.parse(attempt!.request.body!)).toEqual({
        model,
        messages: [{ role: 'user', content: redacted }],
      });
    }
  });

  // Such a body is joined into a pooled block that a capture of every call holds to the end of
  // the request (proxy/pipeline/body-block.ts): the next request's block is never this one's.
  it('with "all", keeps agent-sized streamed requests whole, each with its own body', async () => {
    await settings({ 'requestLog.captureBodies': 'all' });
    for (const word of ['first', 'second', 'third']) {
      const messages = [{ role: 'user', content: `${word} `.repeat(20_000) }];
      const res = await chat({ model: 'coder', stream: true, messages });
      expect(res.status).toBe(200);
      await res.text();
      const { json } = await detail((await lastRow()).id);
      expect(json.client?.truncated).toBe(false);
      expect(JSON.parse(json.client!.body!)).toEqual({ model: 'coder', stream: true, messages });
      expect(JSON.parse(json.attempts[0]!.request.body!).messages).toEqual(messages);
    }
  });

  it('cuts a huge body at captureMaxBytes, marks it, and will not replay it', async () => {
    await settings({ 'requestLog.captureMaxBytes': 1024 });
    gw.primary.script(failing('x'));
    gw.backup.script(failing('y'));
    await chat({ model: 'coder', messages: [{ role: 'user', content: 'z'.repeat(20_000) }] });
    const row = await lastRow();
    const { json } = await detail(row.id);
    const sent = json.attempts[0]!.request;
    expect(sent.truncated).toBe(true);
    expect(sent.body!.length).toBeLessThan(1200);
    expect(sent.body).toMatch(/cut by Breakwater: \d+ more bytes not kept/);
    const refused = await replay(row.id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'not_replayable',
    );
  });

  it('replays on another target, and refuses bad ids and bad targets', async () => {
    gw.primary.script(failing('x'));
    await chat({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'again' }] });
    const row = await lastRow();
    gw.resetResilience();
    const moved = (await (
      await replay(row.id, { target: 'oa2/gpt-backup' })
    ).json()) as ReplayResult;
    expect(moved.status).toBe(200);
    expect((await detail(moved.id)).json.target).toBe('oa2/gpt-backup');

    expect((await replay(999_999)).status).toBe(404);
    expect((await gw.admin('/api/logs/999999')).status).toBe(404);
    expect((await gw.admin('/api/logs/abc')).status).toBe(400);
    expect((await replay('-1')).status).toBe(400);
    const noSuch = await replay(row.id, { target: 'nope/nothing' });
    expect(noSuch.status).toBe(400);
    expect(((await noSuch.json()) as { error: { field: string } }).error.field).toBe('target');
    expect((await replay(row.id, { target: 42 })).status).toBe(400);
    expect((await replay(row.id, ['x'])).status).toBe(400);
    const notCaptured = await chat({ model: 'coder', messages: [{ role: 'user', content: 'ok' }] });
    expect(notCaptured.status).toBe(200);
    expect((await replay((await lastRow()).id)).status).toBe(409);
  });

  it('refuses an unknown capture mode', async () => {
    const res = await gw.admin('/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ 'requestLog.captureBodies': 'sometimes' }),
    });
    expect(res.status).toBe(400);
  });
});
