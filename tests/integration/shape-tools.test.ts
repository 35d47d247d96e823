import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway';
import { shapeHarness } from './shape-harness';

// Tool-count limit (issue 17): a 400 stating a maximum number of tools is remembered per provider
// and model; later requests with more tools fail over to a target without the limit, or get a
// clear 400 naming it, before any upstream call.

const h = shapeHarness();
const tools = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'function',
    function: { name: `t${i}`, parameters: { type: 'object', properties: {} } },
  }));

function chat(model: string, toolCount: number): Promise<Response> {
  return fetch(`${h.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools(toolCount),
    }),
  });
}

const posts = (fake: TestGateway['primary']) => fake.requests.filter((r) => r.method === 'POST');

describe('a provider that states a tool limit', () => {
  it('OpenAI wording: remembered; more tools fail over, or get a clear 400 with no upstream call', async () => {
    h.gw.primary.script({
      status: 400,
      body: {
        error: {
          message:
            "Invalid 'tools': array too long. Expected an array with maximum length 2, but got an array with length 3 instead.",
          type: 'invalid_request_error',
          param: 'tools',
          code: 'array_above_max_length',
        },
      },
    });
    const first = await chat('oa/gpt-test', 3);
    expect(first.status).toBe(400); // the provider's own answer, relayed
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'shape.tool_limit',
        provider: 'oa',
        model: 'gpt-test',
        max: 2,
      }),
    );

    // The combo's first target takes at most 2: it is skipped, the second serves.
    const viaCombo = await chat('coder', 3);
    expect(viaCombo.status).toBe(200);
    expect(viaCombo.headers.get('x-breakwater-decision')).toMatch(/skipped \(tool_limit\)/);
    expect(posts(h.gw.primary)).toHaveLength(1);
    expect(posts(h.gw.backup)).toHaveLength(1);

    // No target left without the limit: a 400 naming it, and no upstream call.
    const direct = await chat('oa/gpt-test', 3);
    expect(direct.status).toBe(400);
    const body = (await direct.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('too_many_tools');
    expect(body.error.message).toMatch(/3 tools.*at most 2/);
    expect(posts(h.gw.primary)).toHaveLength(1);

    // Within the limit, the request goes as usual.
    expect((await chat('oa/gpt-test', 2)).status).toBe(200);
    expect(posts(h.gw.primary)).toHaveLength(2);
  });

  it('Anthropic and Groq wordings are read too, and the limit survives a restart', async () => {
    h.gw.primary.script({
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'tools: List should have at most 1 item after validation, not 2',
        },
      },
    });
    h.gw.backup.script({
      status: 400,
      body: {
        error: { message: "'tools' : maximum number of items is 1", type: 'invalid_request_error' },
      },
    });
    await fetch(`${h.gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'an/claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { name: 'a', input_schema: { type: 'object' } },
          { name: 'b', input_schema: { type: 'object' } },
        ],
      }),
    });
    await chat('oa2/gpt-backup', 2);
    await h.gw.restart();
    const learnt = (await (await h.gw.admin('/api/resilience/learned-fixes')).json()) as {
      provider: string;
      fix: string;
    }[];
    expect(learnt.map((l) => `${l.provider}: ${l.fix}`).sort()).toEqual([
      'an: at most 1 tools',
      'oa2: at most 1 tools',
    ]);
    const refused = await chat('oa2/gpt-backup', 2);
    expect(refused.status).toBe(400);
    expect(posts(h.gw.backup)).toHaveLength(1);
  });
});
