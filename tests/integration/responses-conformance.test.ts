// Through the gateway, as the Open Responses compliance suite calls it: POST /v1/responses on a
// Chat-only provider and an Anthropic provider, streaming and not, with and without tools.
// Every body and every event must pass the specification's schema, and the response must
// repeat the request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { OPENAI_KEY, standardConfig, startGateway, type TestGateway } from '../support/gateway';
import { validateResponse, validateStreamEvent } from '../support/open-responses-schema';
import { sseEvents } from '../support/translate-fixtures';

/** The standard providers (`an` speaks Anthropic Messages) and `oc`, a Chat-only one. */
function config(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  const c = standardConfig(primary, backup);
  c.providers = [
    ...(c.providers ?? []),
    {
      id: 'oc',
      format: 'openai-chat',
      baseUrl: `${primary.url}/v1`,
      authClass: 'api_key',
      connections: [{ id: 'oc-1', apiKey: OPENAI_KEY }],
      models: ['chat-model'],
    },
  ];
  return c;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config });
});
afterAll(() => gw.close());
beforeEach(() => gw.primary.reset());

const tools = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Get the current weather for a location',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
    },
  },
];

/** The request fields the answer must repeat as they were sent. */
const asked = {
  instructions: 'Answer briefly.',
  temperature: 0.4,
  top_p: 0.95,
  max_output_tokens: 512,
  truncation: 'auto',
  store: false,
  prompt_cache_key: 'bw-20',
  safety_identifier: 'hash-1',
  metadata: { run: 'conformance' },
  text: { format: { type: 'text' } },
};

async function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer any' },
    body: JSON.stringify(body),
  });
}

describe.each([
  ['a Chat-only provider', 'oc/chat-model'],
  ['an Anthropic provider', 'an/claude-test'],
])('POST /v1/responses translated for %s', (_label, model) => {
  for (const withTools of [false, true]) {
    const request = {
      model,
      input: [{ type: 'message', role: 'user', content: 'Weather in San Francisco?' }],
      ...asked,
      ...(withTools ? { tools, tool_choice: 'auto', parallel_tool_calls: false } : {}),
    };
    const script = () =>
      gw.primary.script(
        withTools
          ? { toolCalls: [{ name: 'get_weather', arguments: { location: 'San Francisco' } }] }
          : { text: 'It is sunny.' },
      );
    const expectAnswer = (r: Record<string, unknown>) => {
      expect(validateResponse(r)).toEqual([]);
      expect(r).toMatchObject({ ...asked, status: 'completed', model: expect.any(String) });
      expect(r.tools).toEqual(withTools ? [{ ...tools[0], strict: null }] : []);
      expect(r.parallel_tool_calls).toBe(!withTools);
      expect(r.completed_at as number).toBeGreaterThanOrEqual(r.created_at as number);
      const types = (r.output as { type: string }[]).map((o) => o.type);
      expect(types).toContain(withTools ? 'function_call' : 'message');
    };

    it(`${withTools ? 'with' : 'without'} tools, whole body`, async () => {
      script();
      const res = await post(request);
      expect(res.status).toBe(200);
      expectAnswer((await res.json()) as Record<string, unknown>);
    });

    it(`${withTools ? 'with' : 'without'} tools, streamed`, async () => {
      script();
      const res = await post({ ...request, stream: true });
      expect(res.status).toBe(200);
      const events = sseEvents(await res.text());
      events.forEach((e, i) => {
        expect(validateStreamEvent(e.data), `event ${i} (${e.event})`).toEqual([]);
        expect((e.data as { sequence_number: number }).sequence_number).toBe(i);
      });
      const types = events.map((e) => e.event);
      expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
      if (withTools) {
        expect(types).toContain('response.function_call_arguments.delta');
        expect(types).toContain('response.function_call_arguments.done');
      }
      const last = events.at(-1)!.data as { type: string; response: Record<string, unknown> };
      expect(last.type).toBe('response.completed');
      expectAnswer(last.response);
    });
  }
});
