import { describe, expect, it } from 'vitest';
import { anthropicError, shapeHarness } from './shape-harness';

// Context editing (issue 17): opt-in; a 400 saying the prompt is too long is retried once with
// the oldest whole turns removed.

const h = shapeHarness((gw) =>
  gw.engine.admin.updateSettings({ 'shapeRepair.contextEditing': true }),
);
const conversation = [
  { role: 'user', content: 'first' },
  { role: 'assistant', content: 'a1' },
  { role: 'user', content: 'second' },
  { role: 'assistant', content: 'a2' },
  { role: 'user', content: 'third' },
  { role: 'assistant', content: 'a3' },
  { role: 'user', content: 'latest' },
];

const posts = () => h.gw.primary.requests.filter((r) => r.method === 'POST');

describe('context editing', () => {
  it('Anthropic: "prompt is too long" → the oldest turns go, the first and the latest stay', async () => {
    h.gw.primary.script(anthropicError('prompt is too long: 250000 tokens > 200000 maximum'), {});
    const res = await fetch(`${h.gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'an/claude-test',
        max_tokens: 10,
        system: 'sys',
        messages: conversation,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-decision')).toMatch(
      /removed \d oldest turns?, sent again/,
    );
    const [refused, trimmed] = posts();
    expect(refused!.body.messages).toHaveLength(7);
    const kept = (trimmed!.body.messages as { content: string }[]).map((m) => m.content);
    expect(kept[0]).toBe('first');
    expect(kept.at(-1)).toBe('latest');
    expect(kept.length).toBeLessThan(7);
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'shape.repaired', mechanism: 'context' }),
    );
  });

  it('OpenAI-compatible (vLLM): "reduce the length of the messages or completion" → trimmed once', async () => {
    h.gw.backup.script(
      {
        status: 400,
        body: {
          object: 'error',
          type: 'BadRequestError',
          message:
            "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
          param: null,
          code: 400,
        },
      },
      {},
    );
    const res = await fetch(`${h.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa2/gpt-backup', messages: conversation }),
    });
    expect(res.status).toBe(200);
    const sent = h.gw.backup.requests.filter((r) => r.method === 'POST');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.body.messages).toHaveLength(7);
    expect(sent[1]!.body.messages.length).toBeLessThan(7);
    expect(sent[1]!.body.messages.at(-1).content).toBe('latest');
  });

  it('OpenAI: context_length_exceeded; off by default, the 400 is relayed with one request', async () => {
    const refusal = {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 160000 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    };
    const ask = () =>
      fetch(`${h.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'oa/gpt-test', messages: conversation }),
      });
    h.gw.primary.script(refusal, {});
    expect((await ask()).status).toBe(200);
    expect(posts()).toHaveLength(2);
    expect(posts()[1]!.body.messages.length).toBeLessThan(7);

    h.gw.engine.admin.updateSettings({ 'shapeRepair.contextEditing': null });
    h.gw.primary.reset();
    h.gw.primary.script(refusal, {});
    expect((await ask()).status).toBe(400);
    expect(posts()).toHaveLength(1);
  });
});
