import { describe, expect, it } from 'vitest';
import {
  createStreamTranslator,
  emitRequest,
  parseError,
  parseRequest,
  parseResponse,
} from '../../src/main/engine/translate';
import * as gemini from '../../src/main/engine/translate/gemini';
import type { Json, WireFormat } from '../../src/main/engine/translate/ir';
import {
  expectGolden,
  FORMATS,
  fixture,
  goldenPath,
  NOW_MS,
  requestCases,
  responseFixture,
  sseEvents,
  streamFixture,
  translateError,
  translateResponse,
  translateStream,
} from '../support/translate-fixtures';

const G = 'gemini' as const;
const CALL = { model: 'gemini-2.5-pro', stream: true };

function fromGemini(to: WireFormat, body: Json) {
  const parsed = parseRequest(G, body, CALL);
  const emitted = emitRequest(to, parsed.value, to === 'openai-chat' ? 'openai-chat' : 'openai');
  return { body: emitted.value, dropped: [...new Set([...parsed.dropped, ...emitted.dropped])] };
}

function toGemini(from: WireFormat, body: Json) {
  const parsed = parseRequest(from, body);
  const emitted = emitRequest(G, parsed.value, 'gemini');
  return { body: emitted.value, dropped: [...new Set([...parsed.dropped, ...emitted.dropped])] };
}

const cases = requestCases(G);

describe('Gemini: golden translations both ways', () => {
  for (const other of FORMATS) {
    for (const [name, body] of Object.entries(cases)) {
      it(`request ${name} → ${other}`, () => {
        expectGolden(fromGemini(other, body), goldenPath('request', G, other, name));
      });
    }
    for (const [name, body] of Object.entries(requestCases(other))) {
      it(`request ${other} ${name} → gemini`, () => {
        expectGolden(toGemini(other, body), goldenPath('request', other, G, name));
      });
    }
    it(`response ↔ ${other}`, () => {
      expectGolden(
        translateResponse(G, other, responseFixture(G)),
        goldenPath('response', G, other),
      );
      expectGolden(
        translateResponse(other, G, responseFixture(other)),
        goldenPath('response', other, G),
      );
    });
    it(`stream ↔ ${other}`, () => {
      expectGolden(
        sseEvents(translateStream(G, other, streamFixture(G))),
        goldenPath('stream', G, other),
      );
      expectGolden(
        sseEvents(translateStream(other, G, streamFixture(other))),
        goldenPath('stream', other, G),
      );
    });
    it(`stream → ${other} is the same however the bytes are cut`, () => {
      const whole = translateStream(G, other, streamFixture(G));
      for (const size of [1, 7, 64])
        expect(translateStream(G, other, streamFixture(G), size)).toBe(whole);
    });
  }
});

describe('from Gemini: what each feature becomes', () => {
  const tool = parseRequest(G, cases.cli_tool_loop!, CALL).value;
  const snake = parseRequest(G, cases.snake_case_images_schema!, CALL);

  it('the model and streaming come from the URL; system instructions stay in order', () => {
    expect(tool).toMatchObject({ model: 'gemini-2.5-pro', stream: true });
    expect(tool.system).toEqual(['You are an interactive CLI agent.']);
    expect(snake.value.system).toEqual(['Answer as JSON.', 'Be brief.']);
  });

  it('calls without ids get ids, and their responses answer them by name', () => {
    const call = tool.messages[1]!.parts.find((p) => p.type === 'tool_call');
    const result = tool.messages[2]!.parts[0];
    expect(call).toMatchObject({ id: 'call_gemini_0', name: 'read_file' });
    expect(result).toMatchObject({ type: 'tool_result', callId: 'call_gemini_0', isError: false });
  });

  it('a thought signature on a call is kept beside it and goes back onto the call', () => {
    expect(tool.messages[1]!.parts.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'Reading the file first.', signature: null },
      { type: 'reasoning', text: '', signature: 'CiQB0e2Kb7sig' },
    ]);
    const back = emitRequest(G, tool).value as { contents: { parts: Json[] }[] };
    expect(back.contents[1]!.parts[1]).toEqual({
      functionCall: {
        id: 'call_gemini_0',
        name: 'read_file',
        args: { absolute_path: '/work/package.json' },
      },
      thoughtSignature: 'CiQB0e2Kb7sig',
    });
  });

  it('snake_case fields, capitalised schema types, images, errors and forced tools are read', () => {
    const ir = snake.value;
    expect(ir.messages[0]!.parts.slice(1)).toEqual([
      { type: 'image', url: null, mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
      { type: 'image', url: 'https://example.com/cat.jpg', mediaType: null, data: null },
    ]);
    expect(ir.messages[2]!.parts[0]).toMatchObject({ callId: 'fc_1', isError: true });
    expect(ir.tools[0]!.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    expect(ir.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    expect(ir).toMatchObject({ maxTokens: 1024, stop: ['END'] });
    expect(ir.responseFormat).toMatchObject({ type: 'json_schema', schema: { type: 'object' } });
    expect(snake.dropped).toEqual([
      'safetySettings',
      'tools[googleSearch]',
      'generationConfig.topK',
    ]);
  });

  it('a dynamic thinking budget is a medium effort, an explicit one a budget, 0 none', () => {
    expect(tool.reasoning).toEqual({ effort: 'medium', budgetTokens: null });
    const budget = (thinkingBudget: number) =>
      parseRequest(
        G,
        { contents: [], generationConfig: { thinkingConfig: { thinkingBudget } } },
        CALL,
      ).value.reasoning;
    expect(budget(4096)).toEqual({ effort: null, budgetTokens: 4096 });
    expect(budget(0)).toBeNull();
  });
});

describe('Gemini answers, usage and errors', () => {
  it('thoughts count in output, cached tokens carry over, calls make the stop tool_use', () => {
    const ir = parseResponse(G, responseFixture(G));
    expect(ir.usage).toEqual({
      input: 120,
      output: 50,
      cached: 64,
      cacheCreation: null,
      reasoning: 20,
    });
    expect(ir.stop).toBe('tool_use');
    expect(ir.parts.filter((p) => p.type === 'tool_call').map((p) => p.id)).toEqual([
      'call_resp_g1_0',
      'call_resp_g1_1',
    ]);
  });

  it('safety finishes and blocked prompts are content filters', () => {
    const finish = (finishReason: string) =>
      parseResponse(G, { candidates: [{ content: { parts: [] }, finishReason }] }).stop;
    expect(finish('SAFETY')).toBe('content_filter');
    expect(finish('RECITATION')).toBe('content_filter');
    expect(finish('MAX_TOKENS')).toBe('max_tokens');
    expect(parseResponse(G, { promptFeedback: { blockReason: 'SAFETY' } }).stop).toBe(
      'content_filter',
    );
    const out = gemini.emitResponse({ ...parseResponse(G, responseFixture(G)), stop: 'refusal' });
    expect(out).toMatchObject({ candidates: [{ finishReason: 'SAFETY' }] });
  });

  it("Google's error shape is read, and written for Gemini clients", () => {
    const { status, body } = fixture<{ status: number; body: unknown }>('error-gemini.json');
    expect(parseError(G, status, body)).toEqual({
      status: 429,
      kind: 'rate_limit',
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Resource has been exhausted (e.g. check quota).',
    });
    expect(translateError(G, 'anthropic', status, body)).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', code: 'RATE_LIMIT_EXCEEDED' },
    });
    const anthropic = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    expect(translateError('anthropic', G, 529, anthropic)).toEqual({
      error: {
        code: 529,
        message: 'Overloaded',
        status: 'UNAVAILABLE',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'overloaded_error',
            domain: 'breakwater',
          },
        ],
      },
    });
  });

  it('a stream that stops without a finish reason ends with an error, not a finish', () => {
    const cut = `${streamFixture(G).split('\r\n\r\n').slice(0, 3).join('\r\n\r\n')}\r\n\r\n`;
    const t = createStreamTranslator(G, G, { nowMs: NOW_MS, includeUsage: false });
    const events = sseEvents(t.push(Buffer.from(cut)) + t.end());
    expect(events.at(-1)!.data).toMatchObject({
      error: { code: 502, status: 'INTERNAL', details: [{ reason: 'upstream_stream_incomplete' }] },
    });
    expect(JSON.stringify(events)).not.toContain('finishReason');
  });
});
