import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createStreamParser,
  createStreamWriter,
  emitRequest,
  emitResponse,
  parseRequest,
  parseResponse,
} from '../../src/main/engine/translate';
import {
  type IrEvent,
  type IrImage,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrResponse,
  type IrStop,
  type IrText,
  type IrUsage,
  mergeIrUsage,
  type WireFormat,
} from '../../src/main/engine/translate/ir';
import { responseEvents, SseDecoder } from '../../src/main/engine/translate/stream';

// Round trips that are lossless by design: IR → format → IR gives back the same IR, for the
// part of the IR each format can express (each generator below stays inside that part).

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _.,!?-]{0,20}$/);
const id = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{2,12}$/);
const args = fc
  .dictionary(
    fc.stringMatching(/^[a-z][a-z_]{0,7}$/),
    fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    { maxKeys: 4 },
  )
  .map((o) => JSON.stringify(o));
const text: fc.Arbitrary<IrText> = word.map((t) => ({ type: 'text', text: t }));
const image: fc.Arbitrary<IrImage> = fc.oneof(
  fc.webUrl().map((url) => ({ type: 'image' as const, url, mediaType: null, data: null })),
  fc.base64String({ minLength: 4, maxLength: 40 }).map((data) => ({
    type: 'image' as const,
    url: null,
    mediaType: 'image/png',
    data,
  })),
);
const toolCall = fc.record({
  type: fc.constant('tool_call' as const),
  id,
  name: id,
  arguments: args,
});
const toolResult = (isError: fc.Arbitrary<boolean>) =>
  fc.record({
    type: fc.constant('tool_result' as const),
    callId: id,
    content: text.map((t) => [t] as IrText[]),
    isError,
  });
const signedReasoning = fc.record({
  type: fc.constant('reasoning' as const),
  text: word,
  signature: id,
});

interface Shape {
  user: fc.Arbitrary<IrPart[]>;
  assistant: fc.Arbitrary<IrPart[]>;
  system: fc.Arbitrary<string[]>;
  stop: fc.Arbitrary<string[]>;
  reasoning: fc.Arbitrary<IrRequest['reasoning']>;
  responseFormat: fc.Arbitrary<IrRequest['responseFormat']>;
  temperature: fc.Arbitrary<number | null>;
  /** The request's `user` field; formats without one leave it out. */
  userField?: fc.Arbitrary<string | null>;
}

const SHAPES: Record<WireFormat, Shape> = {
  anthropic: {
    user: fc
      .tuple(
        fc.array(toolResult(fc.boolean()), { maxLength: 2 }),
        fc.array(fc.oneof(text, image), { maxLength: 3 }),
      )
      .map(([a, b]) => [...a, ...b])
      .filter((p) => p.length > 0),
    assistant: fc
      .tuple(
        fc.option(signedReasoning, { nil: undefined }),
        fc.array(fc.oneof(text, toolCall), { minLength: 1, maxLength: 3 }),
      )
      .map(([r, rest]) => (r ? [r, ...rest] : rest)),
    system: fc.array(word, { maxLength: 3 }),
    stop: fc.array(word, { maxLength: 2 }),
    reasoning: fc.constant(null),
    responseFormat: fc.constant(null),
    temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  },
  'openai-chat': {
    user: fc
      .tuple(
        fc.array(toolResult(fc.constant(false)), { maxLength: 2 }),
        fc.oneof(
          fc.constant([] as IrPart[]),
          text.map((t) => [t] as IrPart[]),
          fc.tuple(fc.array(text, { maxLength: 2 }), image).map(([t, i]) => [...t, i] as IrPart[]),
        ),
      )
      .map(([a, b]) => [...a, ...b])
      .filter((p) => p.length > 0),
    assistant: fc
      .tuple(fc.option(text, { nil: undefined }), fc.array(toolCall, { maxLength: 2 }))
      .map(([t, calls]) => (t ? [t, ...calls] : calls))
      .filter((p) => p.length > 0),
    system: fc.array(word, { maxLength: 3 }),
    stop: fc.array(word, { maxLength: 2 }),
    reasoning: fc.option(
      fc
        .constantFrom('minimal', 'low', 'medium', 'high')
        .map((effort) => ({ effort, budgetTokens: null })),
      { nil: null },
    ),
    responseFormat: fc.option(
      fc.oneof(
        fc.constant({ type: 'json_object' as const }),
        fc.record({
          type: fc.constant('json_schema' as const),
          name: id,
          schema: fc.constant({ type: 'object' }),
          strict: fc.option(fc.boolean(), { nil: null }),
        }),
      ),
      { nil: null },
    ),
    temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null }),
  },
  'openai-responses': {
    user: fc.array(fc.oneof(text, image, toolResult(fc.constant(false))), {
      minLength: 1,
      maxLength: 4,
    }),
    assistant: fc.array(fc.oneof(text, toolCall, signedReasoning), { minLength: 1, maxLength: 4 }),
    system: fc.array(word, { maxLength: 1 }),
    stop: fc.constant([]),
    reasoning: fc.option(
      fc
        .constantFrom('minimal', 'low', 'medium', 'high')
        .map((effort) => ({ effort, budgetTokens: null })),
      { nil: null },
    ),
    responseFormat: fc.constant(null),
    temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null }),
  },
  gemini: {
    user: fc.array(fc.oneof(text, image, toolResult(fc.boolean())), { minLength: 1, maxLength: 4 }),
    assistant: fc.array(fc.oneof(text, toolCall, signedReasoning), { minLength: 1, maxLength: 4 }),
    system: fc.array(word, { maxLength: 3 }),
    stop: fc.array(word, { maxLength: 2 }),
    reasoning: fc.option(
      fc.integer({ min: 1, max: 32_768 }).map((budgetTokens) => ({ effort: null, budgetTokens })),
      { nil: null },
    ),
    responseFormat: fc.option(
      fc.constantFrom(
        { type: 'json_object' as const },
        {
          type: 'json_schema' as const,
          name: 'response',
          schema: { type: 'object' },
          strict: null,
        },
      ),
      { nil: null },
    ),
    temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null }),
    userField: fc.constant(null),
  },
};

function conversation(shape: Shape): fc.Arbitrary<IrMessage[]> {
  return fc
    .array(fc.tuple(shape.user, shape.assistant), { minLength: 1, maxLength: 3 })
    .chain((turns) =>
      fc.option(shape.user, { nil: undefined }).map((last) => {
        const out: IrMessage[] = [];
        for (const [u, a] of turns) {
          out.push({ role: 'user', parts: u }, { role: 'assistant', parts: a });
        }
        if (last) out.push({ role: 'user', parts: last });
        return out;
      }),
    );
}

function request(format: WireFormat): fc.Arbitrary<IrRequest> {
  const s = SHAPES[format];
  return (
    fc
      .record({
        model: id,
        system: s.system,
        messages: conversation(s),
        tools: fc.array(
          fc.record({
            name: id,
            description: fc.option(word, { nil: null }),
            parameters: fc.constant({ type: 'object', properties: { q: { type: 'string' } } }),
          }),
          { maxLength: 2 },
        ),
        toolChoice: fc.option(
          fc.oneof(
            fc.constantFrom(
              { type: 'auto' as const },
              { type: 'none' as const },
              { type: 'required' as const },
            ),
            id.map((name) => ({ type: 'tool' as const, name })),
          ),
          { nil: null },
        ),
        parallelToolCalls: fc.constant(null),
        maxTokens: fc.integer({ min: 1, max: 100_000 }),
        temperature: s.temperature,
        topP: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        stop: s.stop,
        stream: fc.boolean(),
        reasoning: s.reasoning,
        responseFormat: s.responseFormat,
        user: s.userField ?? fc.option(id, { nil: null }),
        // Only the OpenAI formats have prompt-cache fields.
        cacheKey: format.startsWith('openai') ? fc.option(id, { nil: null }) : fc.constant(null),
        cacheRetention: format.startsWith('openai')
          ? fc.option(fc.constantFrom('in_memory', '24h'), { nil: null })
          : fc.constant(null),
      })
      // A tool_choice without tools is not sent (Anthropic refuses it).
      .map((ir) =>
        ir.tools.length > 0 ? ir : { ...ir, toolChoice: null },
      ) as fc.Arbitrary<IrRequest>
  );
}

describe('requests survive a round trip through their own format', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(format, () => {
      fc.assert(
        fc.property(request(format), (ir) => {
          const emitted = emitRequest(format, ir, 'openai-chat');
          const call = { model: ir.model, stream: ir.stream }; // a Gemini request's URL
          const back = parseRequest(format, JSON.parse(JSON.stringify(emitted.value)), call);
          expect(back.dropped).toEqual([]);
          expect(back.value).toEqual(ir);
        }),
        { numRuns: 200 },
      );
    });
  }
});

const usage = (withCacheCreation: boolean, withReasoning: boolean): fc.Arbitrary<IrUsage> =>
  fc
    .record({
      cached: fc.nat(1000),
      cacheCreation: fc.nat(1000),
      extra: fc.nat(5000),
      output: fc.nat(5000),
      reasoning: fc.nat(100),
    })
    .map((u) => ({
      input: u.cached + (withCacheCreation ? u.cacheCreation : 0) + u.extra,
      output: u.output,
      cached: u.cached,
      cacheCreation: withCacheCreation ? u.cacheCreation : null,
      reasoning: withReasoning ? u.reasoning : null,
    }));

function response(format: WireFormat): fc.Arbitrary<IrResponse> {
  const base = { id, model: id, stopSequence: fc.constant(null) };
  if (format === 'anthropic') {
    return (
      fc
        .record({
          ...base,
          parts: fc.array(fc.oneof(text, toolCall, signedReasoning), { maxLength: 4 }),
          stop: fc.constantFrom<IrStop>(
            'end',
            'max_tokens',
            'tool_use',
            'stop_sequence',
            'refusal',
            'pause',
          ),
          stopSequence: fc.option(word, { nil: null }),
          usage: usage(true, false),
        })
        // An answer with tool calls ends with `tool_use`, whatever the upstream said.
        .map((r) =>
          r.stop === 'end' && r.parts.some((p) => p.type === 'tool_call')
            ? { ...r, stop: 'tool_use' as IrStop }
            : r,
        )
    );
  }
  if (format === 'gemini') {
    return fc
      .record({
        ...base,
        parts: fc.array(fc.oneof(text, toolCall, signedReasoning), { maxLength: 4 }),
        stop: fc.constantFrom<IrStop>('end', 'max_tokens', 'content_filter'),
        // Gemini counts thoughts apart from the answer, so they cannot exceed the output.
        usage: usage(false, true).map((u) => ({
          ...u,
          output: (u.output ?? 0) + (u.reasoning ?? 0),
        })),
      })
      .map((r) => ({
        ...r,
        // Gemini ends a turn of calls with STOP, which reads back as tool_use.
        stop: r.stop === 'end' && r.parts.some((p) => p.type === 'tool_call') ? 'tool_use' : r.stop,
      }));
  }
  if (format === 'openai-chat') {
    return fc
      .record({
        ...base,
        reasoning: fc.option(word, { nil: undefined }),
        text: fc.option(text, { nil: undefined }),
        calls: fc.array(toolCall, { maxLength: 3 }),
        stop: fc.constantFrom<IrStop>('end', 'max_tokens', 'tool_use', 'content_filter'),
        usage: usage(false, true),
      })
      .map(({ reasoning, text: t, calls, ...r }) => ({
        ...r,
        // A Chat answer with tool calls finishes with `tool_calls`.
        stop: calls.length > 0 && r.stop === 'end' ? ('tool_use' as IrStop) : r.stop,
        parts: [
          ...(reasoning ? [{ type: 'reasoning' as const, text: reasoning, signature: null }] : []),
          ...(t ? [t] : []),
          ...calls,
        ],
      }));
  }
  return fc
    .record({
      ...base,
      parts: fc.array(fc.oneof(text, toolCall, signedReasoning), { maxLength: 4 }),
      incomplete: fc.option(fc.constantFrom<IrStop>('max_tokens', 'content_filter'), { nil: null }),
      usage: usage(false, true),
    })
    .map(({ incomplete, ...r }) => ({
      ...r,
      stop: incomplete ?? (r.parts.some((p) => p.type === 'tool_call') ? 'tool_use' : 'end'),
    }));
}

describe('answers survive a round trip through their own format', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(format, () => {
      fc.assert(
        fc.property(response(format), (ir) => {
          const body = JSON.parse(
            JSON.stringify(emitResponse(format, ir, { nowMs: 1_750_000_000_000 })),
          );
          expect(parseResponse(format, body)).toEqual(ir);
        }),
        { numRuns: 200 },
      );
    });
  }
});

/** An answer rebuilt from stream events: what a client ends up with. */
function collect(
  events: IrEvent[],
): Omit<IrResponse, 'id' | 'model' | 'usage'> & { usage: IrUsage } {
  const parts: IrResponse['parts'] = [];
  const tools = new Map<
    number,
    { type: 'tool_call'; id: string; name: string; arguments: string }
  >();
  const out = {
    parts,
    stop: 'end' as IrStop,
    stopSequence: null as string | null,
    usage: {} as IrUsage,
  };
  for (const e of events) {
    const last = parts.at(-1);
    if (e.type === 'text') {
      if (last?.type === 'text') last.text += e.text;
      else parts.push({ type: 'text', text: e.text });
    } else if (e.type === 'reasoning') {
      if (last?.type === 'reasoning') last.text += e.text;
      else parts.push({ type: 'reasoning', text: e.text, signature: null });
    } else if (e.type === 'reasoning_signature') {
      if (last?.type === 'reasoning') last.signature = (last.signature ?? '') + e.signature;
      else parts.push({ type: 'reasoning', text: '', signature: e.signature });
    } else if (e.type === 'tool_start') {
      const t = { type: 'tool_call' as const, id: e.id, name: e.name, arguments: '' };
      tools.set(e.index, t);
      parts.push(t);
    } else if (e.type === 'tool_args') tools.get(e.index)!.arguments += e.delta;
    else if (e.type === 'stop') {
      out.stop = e.stop;
      out.stopSequence = e.stopSequence;
    } else if (e.type === 'usage') mergeIrUsage(out.usage, e.usage);
  }
  return out;
}

describe('streams survive a round trip through their own format, however the bytes are cut', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(format, () => {
      fc.assert(
        fc.property(response(format), fc.integer({ min: 1, max: 64 }), (ir, cut) => {
          // Streams split reasoning and text only where the kind changes.
          const events = responseEvents(ir);
          const writer = createStreamWriter(format, {
            nowMs: 1_750_000_000_000,
            includeUsage: true,
          });
          let sse = '';
          for (const e of events) sse += writer.write(e);
          sse += writer.finish();
          const parser = createStreamParser(format);
          const decoder = new SseDecoder();
          const back: IrEvent[] = [];
          const bytes = Buffer.from(sse);
          const on = (ev: string | null, data: string) => back.push(...parser.push(ev, data));
          for (let i = 0; i < bytes.length; i += cut) decoder.push(bytes.subarray(i, i + cut), on);
          decoder.end(on);
          back.push(...parser.end());
          expect(back.some((e) => e.type === 'error')).toBe(false);
          const want = collect(events);
          const got = collect(back);
          expect(got.parts).toEqual(want.parts.filter((p) => p.type !== 'text' || p.text !== ''));
          expect(got.stop).toEqual(want.stop);
          expect(got.usage.output).toEqual(want.usage.output);
        }),
        { numRuns: 150 },
      );
    });
  }
});
