import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

// Requests of 96 KB and more are checked by a byte scan and parsed only when needed (the
// pipeline's parse stage); these hold that path to what parsing them whole did.

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

/** An agent-sized conversation: 200 KB of history, quotes, escapes and non-ASCII included. */
function history(): Array<{ role: 'user' | 'assistant'; content: string }> {
  const turn =
    'Refactor `load()` so it returns "frozen" config — see C:\\src\\cfg.ts\n\ttab, émoji 🚀. ';
  return Array.from({ length: 200 }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `${i}: ${turn.repeat(12)}`,
  }));
}

interface ErrorJson {
  error: { code: string; message: string };
}

async function post(body: string): Promise<{ status: number; json: ErrorJson }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: (await res.json()) as ErrorJson };
}

describe('agent-sized requests (96 KB and more)', () => {
  it('pass through a combo with only the model changed, byte for byte', async () => {
    const sent = JSON.stringify({ model: 'coder', messages: history(), temperature: 0.3 });
    expect(sent.length).toBeGreaterThan(200 * 1024);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused' });
    const answer = await client.chat.completions.create(JSON.parse(sent));
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const received = gw.primary.requests[0]!.rawBody;
    expect(received).toBe(sent.replace('"model":"coder"', '"model":"gpt-test"'));
  });

  it('with the model last and a nested "model" key: only the top-level one is renamed', async () => {
    const sent = JSON.stringify({
      messages: history(),
      metadata: { model: 'coder' },
      model: 'coder',
    });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused' });
    await client.chat.completions.create(JSON.parse(sent));
    expect(gw.primary.requests[0]!.rawBody).toBe(
      sent.replace(/"model":"coder"}$/, '"model":"gpt-test"}'),
    );
  });

  it('with the model key twice (once spelt with escapes): what JSON.parse reads is what goes', async () => {
    const body = JSON.stringify({ model: 'nope', messages: history() });
    // JSON.parse keeps the last `model`; the escaped spelling is the same key.
    const sent = `${body.slice(0, -1)},"mod\\u0065l":"coder"}`;
    expect((JSON.parse(sent) as { model: string }).model).toBe('coder');
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    expect(res.status).toBe(200);
    const received = JSON.parse(gw.primary.requests[0]!.rawBody) as Record<string, unknown>;
    expect(received.model).toBe('gpt-test');
    expect(received.messages).toEqual(history());
  });

  it('stream when they ask to, whatever key order and spacing', async () => {
    const sent = JSON.stringify({ messages: history(), stream: true, model: 'gpt-test' }, null, 2);
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect((await res.text()).trimEnd().endsWith('data: [DONE]')).toBe(true);
    // The client's bytes, with only the ask for usage put in front (issue 27: usage is counted).
    expect(gw.primary.requests[0]!.rawBody).toBe(
      `{"stream_options":{"include_usage":true},${sent.slice(1)}`,
    );
    // Read as a streaming request by the gateway too, not only passed on as one.
    expect(gw.primary.requests[0]!.headers.accept).toBe('text/event-stream');
  });

  it('are translated for a provider of another format (parsed when needed)', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused' });
    const answer = await client.chat.completions.create({ model: 'claude', messages: history() });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const upstream = gw.primary.requests[0]!;
    expect(upstream.path).toBe('/v1/messages');
    expect(upstream.body.messages).toHaveLength(200);
    expect(upstream.body.messages[5].content).toEqual([
      { type: 'text', text: history()[5]!.content },
    ]);
  });

  it('count tokens through the Anthropic endpoint', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: 'unused' });
    const counted = await client.messages.countTokens({ model: 'claude', messages: history() });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('malformed deep inside get the same 400 as a small one, with JSON.parse’s reason', async () => {
    const valid = JSON.stringify({ model: 'gpt-test', messages: history() });
    const bad = [
      `${valid.slice(0, 150_000)}\u0001${valid.slice(150_000)}`,
      valid.slice(0, -1),
      `${valid.slice(0, 150_000)}\\x${valid.slice(150_000)}`,
      valid.replace('"role":"assistant"', '"role":assistant'),
    ];
    for (const body of bad) {
      let reason = '';
      try {
        JSON.parse(body);
      } catch (err) {
        reason = (err as Error).message;
      }
      expect(reason).not.toBe('');
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('invalid_json');
      expect(res.json.error.message).toBe(`request body is not valid JSON: ${reason}`);
    }
    expect(gw.primary.requests).toHaveLength(0);
  });

  it('refuse a body that is not an object, or a model that is not a string', async () => {
    const big = history();
    const asArray = await post(JSON.stringify([{ model: 'gpt-test' }, ...big]));
    expect(asArray.status).toBe(400);
    expect(asArray.json.error.code).toBe('invalid_body');
    const numeric = await post(JSON.stringify({ model: 42, messages: big }));
    expect(numeric.status).toBe(400);
    expect(numeric.json.error.code).toBe('missing_model');
    // The last of a repeated key counts, as JSON.parse has it.
    const twice = `{"model":"nope","messages":${JSON.stringify(big)},"model":"gpt-test"}`;
    expect((await post(twice)).status).toBe(200);
    const escaped = `{"mod\\u0065l":"gpt-test","messages":${JSON.stringify(big)}}`;
    expect((await post(escaped)).status).toBe(200);
  });
});
