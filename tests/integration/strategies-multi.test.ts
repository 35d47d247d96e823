import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, RequestLogEntry } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';

const KEY = 'sk-test-multi-0123456789abcdef';

/** `p` on the primary upstream, `b` on the backup; fusion, pipeline and context-relay combos. */
function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  const provider = (id: string, u: FakeUpstream, models: BreakwaterConfig['providers']) => ({
    id,
    format: 'openai' as const,
    baseUrl: `${u.url}/v1`,
    authClass: 'api_key' as const,
    connections: [{ id: `${id}-1`, apiKey: KEY }],
    models: models as never,
  });
  return {
    providers: [
      provider('p', primary, [
        { id: 'm', price: { input: 1, output: 2 } },
        { id: 'big', contextWindow: 100_000 },
      ] as never),
      provider('b', backup, [
        { id: 'm', price: { input: 3, output: 4 } },
        'judge',
        'sum',
        { id: 'small', contextWindow: 3000 },
      ] as never),
    ],
    combos: [
      {
        name: 'fuse',
        strategy: 'fusion',
        targets: [],
        options: { panel: ['p/m', 'b/m'], judge: 'b/judge' },
      },
      { name: 'pipe', strategy: 'pipeline', targets: ['p/m', 'b/m', 'p/big'] },
      {
        name: 'relay',
        strategy: 'context-relay',
        targets: ['p/big', 'b/small'],
        options: { summarizer: 'b/sum' },
      },
    ],
  };
}

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway({ config });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
});

const decisionOf = (h: Headers) => decodeURIComponent(h.get('x-breakwater-decision') ?? '');
const sent = (u: FakeUpstream, i: number) => JSON.stringify(u.requests[i]?.body);

async function logs(n: number): Promise<RequestLogEntry[]> {
  let rows: RequestLogEntry[] = [];
  await eventually(async () => {
    const body = (await (await gw.admin(`/api/logs?limit=${n}`)).json()) as
      | RequestLogEntry[]
      | { data?: RequestLogEntry[] };
    rows = Array.isArray(body) ? body : (body.data ?? []);
    return rows.length >= n;
  });
  return rows;
}

describe('fusion', () => {
  it('asks the panel in parallel, the judge answers from both; every call logged and priced', async () => {
    gw.primary.script({ text: 'answer A', usage: { input: 10, output: 5 } });
    gw.backup.script({ text: 'answer B', usage: { input: 10, output: 5 } }, { text: 'JUDGED' });
    const { data, response } = await openai.chat.completions
      .create({ model: 'fuse', messages: [{ role: 'user', content: 'question?' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('JUDGED');
    const decision = decisionOf(response.headers);
    expect(decision).toMatch(/^combo fuse \(fusion\); panel: p\/m answered, b\/m answered/);
    expect(decision).toContain('judge b/judge writes the answer from 2 of 2');
    const judge = gw.backup.requests.find((r) => r.body.model === 'judge')!;
    expect(JSON.stringify(judge.body)).toContain('answer A');
    expect(JSON.stringify(judge.body)).toContain('answer B');
    expect(JSON.stringify(judge.body)).toContain('question?');
    const rows = await logs(3);
    const panel = rows.filter((r) => r.decision?.includes('call'));
    expect(panel.map((r) => r.target).sort()).toEqual(['b/m', 'p/m']);
    // Each internal call priced by its own model: 10 in, 5 out at $1/$2 and $3/$4 per million.
    expect(panel.find((r) => r.target === 'p/m')?.costUsd).toBeCloseTo(20e-6, 12);
    expect(panel.find((r) => r.target === 'b/m')?.costUsd).toBeCloseTo(50e-6, 12);
  });

  // An agent-sized question arrives in chunks and is joined into a pooled block that only the
  // client's request gives back (proxy/pipeline/body-block.ts), not each internal call.
  it('agent-sized questions, in turn and side by side: each judge gets its own', async () => {
    const ask = (tag: string) => {
      gw.primary.script({ text: `panel A ${tag}` });
      gw.backup.script({ text: `panel B ${tag}` }, { text: `JUDGED ${tag}` });
      return openai.chat.completions.create({
        model: 'fuse',
        messages: [{ role: 'user', content: `${tag} `.repeat(15_000) }],
      });
    };
    for (const tag of ['alpha', 'bravo']) {
      expect((await ask(tag)).choices[0]?.message.content).toBe(`JUDGED ${tag}`);
    }
    gw.primary.reset();
    gw.backup.reset();
    gw.primary.setDefault({ text: 'panel' });
    gw.backup.setDefault({ text: 'judged' });
    const tags = ['charlie', 'delta', 'echo'];
    await Promise.all(
      tags.map((tag) =>
        openai.chat.completions.create({
          model: 'fuse',
          messages: [{ role: 'user', content: `${tag} `.repeat(15_000) }],
        }),
      ),
    );
    const judges = gw.backup.requests.filter((r) => r.body.model === 'judge');
    expect(judges).toHaveLength(3);
    for (const judge of judges) {
      const text = JSON.stringify(judge.body);
      const own = tags.filter((t) => text.includes(`${t} ${t} ${t}`));
      expect(own).toHaveLength(1);
      expect(text).toContain(`${own[0]} `.repeat(15_000).trim());
    }
  });

  it('works with what answered, says so, and streams the judge to an Anthropic client', async () => {
    gw.primary.script({ status: 500 });
    gw.backup.script({ text: 'answer B' }, { text: 'JUDGED STREAM' });
    const stream = anthropic.messages.stream({
      model: 'fuse',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'question?' }],
    });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'JUDGED STREAM' });
    const decision = decisionOf((await stream.withResponse()).response.headers);
    expect(decision).toContain('panel: p/m@p-1 failed (HTTP 500');
    expect(decision).toContain('judge b/judge writes the answer from 1 of 2');
    const judge = gw.backup.requests.find((r) => r.body.model === 'judge')!;
    expect(judge.body.stream).toBe(true);
    expect(JSON.stringify(judge.body)).not.toContain('answer A');
  });

  it('no panel member answers: the error in the caller format, and no judge call', async () => {
    gw.primary.script({ status: 400 });
    gw.backup.script({ status: 400 });
    const err = await anthropic.messages
      .create({ model: 'fuse', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
    });
    expect(gw.backup.requests.some((r) => r.body.model === 'judge')).toBe(false);
  });

  it('the client going away cancels the panel calls in flight, and the judge is never asked', async () => {
    gw.primary.script({ delayMs: 5000 });
    gw.backup.script({ text: 'answer B' });
    const abort = new AbortController();
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fuse', messages: [{ role: 'user', content: 'q' }] }),
      signal: abort.signal,
    }).catch((e: unknown) => e);
    await eventually(() => gw.primary.requestCount > 0 && gw.backup.requestCount > 0);
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect((await gw.primary.waitForAbort()).aborted).toBe(true);
    const rows = await logs(3);
    expect(rows.find((r) => r.modelRequested === 'fuse')?.status).toBe(499);
    expect(gw.backup.requests.some((r) => r.body.model === 'judge')).toBe(false);
  });

  it('Responses clients, streaming', async () => {
    gw.primary.script({ text: 'answer A' });
    gw.backup.script({ text: 'answer B' }, { text: 'JUDGED' });
    const stream = await openai.responses.create({ model: 'fuse', input: 'q', stream: true });
    let text = '';
    for await (const e of stream) if (e.type === 'response.output_text.delta') text += e.delta;
    expect(text).toBe('JUDGED');
  });
});

describe('pipeline', () => {
  it('each target refines the one before; the last streams to the client', async () => {
    gw.primary.script({ text: 'DRAFT-1' }, { text: 'FINAL' });
    gw.backup.script({ text: 'DRAFT-2' });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'pipe', messages: [{ role: 'user', content: 'q' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('FINAL');
    expect(decisionOf(response.headers)).toMatch(
      /^combo pipe \(pipeline\); steps: p\/m drafted, b\/m drafted; p\/big refines the draft of b\/m/,
    );
    expect(sent(gw.backup, 0)).toContain('DRAFT-1');
    expect(sent(gw.primary, 1)).toContain('DRAFT-2');
    expect(gw.primary.requests[0]!.body.stream).not.toBe(true);
  });

  it('a failed step is passed over; Gemini clients, not streaming', async () => {
    gw.primary.script({ text: 'DRAFT-1' }, { text: 'FINAL' });
    gw.backup.script({ status: 400 });
    const res = await fetch(`${gw.url}/v1beta/models/pipe:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'q' }] }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(body.candidates[0]?.content.parts[0]?.text).toBe('FINAL');
    expect(decisionOf(res.headers)).toContain('steps: p/m drafted, b/m@b-1 failed (HTTP 400');
    expect(decisionOf(res.headers)).toContain('p/big refines the draft of p/m');
  });
});

/** A conversation of `n` turns, each about 500 tokens, with a tool call and its result in turn 2. */
function longConversation(n: number): Anthropic.MessageParam[] {
  const filler = (i: number) => `turn ${i}: ${'lorem ipsum '.repeat(160)}`;
  const out: Anthropic.MessageParam[] = [];
  for (let i = 1; i <= n; i++) {
    out.push({ role: 'user', content: filler(i) });
    if (i === 2) {
      out.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_1', name: 'look', input: { q: 'x' } }],
      });
      out.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'found it' }],
      });
    }
    out.push({ role: 'assistant', content: `reply ${i}` });
  }
  out.push({ role: 'user', content: 'and now?' });
  return out;
}

describe('context-relay', () => {
  it('a session keeps its target; moved to a smaller window, older turns become a summary', async () => {
    const session = { 'x-session-id': 'relay-1' };
    const first = await anthropic.messages
      .create(
        { model: 'relay', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
        { headers: session },
      )
      .withResponse();
    expect(decisionOf(first.response.headers)).toContain('new session: moved to p/big');
    const again = await anthropic.messages
      .create(
        { model: 'relay', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
        { headers: session },
      )
      .withResponse();
    expect(decisionOf(again.response.headers)).toContain('session stays on p/big');
    // p/big cools down after a 429 to a request of another session (it fails over to b/small).
    gw.primary.script({ status: 429, headers: { 'retry-after': '120' } });
    await anthropic.messages.create({
      model: 'relay',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'other' }],
    });
    gw.primary.reset();
    gw.backup.reset();
    gw.backup.script({ text: 'SUMMARY OF EARLY TURNS' }, { text: 'carried on' });
    const stream = anthropic.messages.stream(
      { model: 'relay', max_tokens: 50, messages: longConversation(8) },
      { headers: session },
    );
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ text: 'carried on' });
    const decision = decisionOf((await stream.withResponse()).response.headers);
    expect(decision).toMatch(
      /^combo relay \(context-relay\); session's p\/big is ineligible: moved to b\/small \(window 3000\); \d older turns? summarised; summary by b\/sum/,
    );
    const [summarizer, final] = gw.backup.requests;
    expect(summarizer!.body.model).toBe('sum');
    expect(JSON.stringify(summarizer!.body)).toContain('turn 1:');
    expect(final!.body.model).toBe('small');
    const finalText = JSON.stringify(final!.body);
    expect(finalText).toContain('SUMMARY OF EARLY TURNS');
    expect(finalText).not.toContain('turn 1:');
    expect(finalText).toContain('and now?');
    // A tool call and its result are summarised or kept together, never split.
    expect(finalText.includes('call_1')).toBe(finalText.includes('found it'));
    expect(gw.primary.requestCount).toBe(0);
  });

  it('the summarizer failing fails the request in the caller format (OpenAI, not streaming)', async () => {
    const session = { 'x-session-id': 'relay-2' };
    const turn = (i: number) => [
      { role: 'user' as const, content: `turn ${i}: ${'lorem ipsum '.repeat(160)}` },
      { role: 'assistant' as const, content: `reply ${i}` },
    ];
    await openai.chat.completions.create(
      { model: 'relay', messages: [{ role: 'user', content: 'hi' }] },
      { headers: session },
    );
    gw.primary.script({ status: 429, headers: { 'retry-after': '120' } });
    await openai.chat.completions.create({
      model: 'relay',
      messages: [{ role: 'user', content: 'other' }],
    });
    gw.backup.reset();
    gw.backup.script({ status: 400 });
    const messages = [1, 2, 3, 4, 5, 6, 7, 8].flatMap(turn);
    const err = await openai.chat.completions
      .create(
        { model: 'relay', messages: [...messages, { role: 'user', content: 'now?' }] },
        {
          headers: session,
        },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const headers = (err as InstanceType<typeof OpenAI.APIError>).headers;
    expect(decodeURIComponent(headers?.get('x-breakwater-decision') ?? '')).toContain(
      'summarizer failed: b/sum@b-1 failed (HTTP 400',
    );
    expect(gw.backup.requests.map((r) => r.body.model)).toEqual(['sum']);
  });
});

describe('Gemini clients, streaming', () => {
  it('pipeline: the last step streams in the Gemini format', async () => {
    gw.primary.script({ text: 'DRAFT-1' }, { text: 'FINAL' });
    gw.backup.script({ text: 'DRAFT-2' });
    const res = await fetch(`${gw.url}/v1beta/models/pipe:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'q' }] }] }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map(
        (l) =>
          JSON.parse(l.slice(6)) as {
            candidates?: { content?: { parts?: { text?: string }[] } }[];
          },
      )
      .map((e) => e.candidates?.[0]?.content?.parts?.[0]?.text ?? '')
      .join('');
    expect(text).toBe('FINAL');
    expect(decisionOf(res.headers)).toContain('p/big refines the draft of b/m');
  });
});
