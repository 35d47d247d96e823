// OpenAI Chat Completions ↔ IR. https://platform.openai.com/docs/api-reference/chat
import { streamErrorEvent } from '../wire/client-errors';
import { gatewayErrorOf, openAiErrorOf, unreadableStreamError } from './errors';
import {
  arr,
  type Effort,
  effortFor,
  emptyRequest,
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrImage,
  type IrPart,
  type IrRequest,
  type IrResponse,
  type IrStop,
  type IrText,
  type IrToolCall,
  type IrUsage,
  imageFromUrl,
  imageUrlOf,
  incompleteError,
  type Json,
  mergeIrUsage,
  num,
  obj,
  type Parsed,
  pushPart,
  resultText,
  type StreamParser,
  type StreamWriter,
  str,
  textOf,
  unknownKeys,
} from './ir';
import { functionFields, jsonSchemaFields } from './openai-fields';
import { eventJson } from './stream';

const KNOWN_REQUEST_KEYS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'stream',
  'stream_options',
  'reasoning_effort',
  'response_format',
  'user',
  'store',
  'n',
]);

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

// --- requests ---------------------------------------------------------------------------------

function textParts(content: unknown, dropped: string[]): string {
  if (typeof content === 'string') return content;
  let s = '';
  for (const p of arr(content)) {
    const part = obj(p);
    if (part?.type === 'text' || part?.type === 'refusal')
      s += str(part.text ?? part.refusal) ?? '';
    else if (part) dropped.push(`${String(part.type)} content`);
  }
  return s;
}

function userParts(content: unknown, dropped: string[]): (IrText | IrImage)[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: (IrText | IrImage)[] = [];
  for (const p of arr(content)) {
    const part = obj(p);
    if (!part) continue;
    if (part.type === 'text') out.push({ type: 'text', text: str(part.text) ?? '' });
    else if (part.type === 'image_url') {
      out.push(imageFromUrl(str(obj(part.image_url)?.url) ?? str(part.image_url) ?? ''));
    } else dropped.push(`${String(part.type)} content`);
  }
  return out;
}

/** An assistant message's `tool_calls` as IR tool calls; malformed entries are skipped. */
function toolCallsIn(calls: unknown): IrToolCall[] {
  const out: IrToolCall[] = [];
  for (const c of arr(calls)) {
    const call = obj(c);
    const fn = obj(call?.function);
    if (!call || !fn) continue;
    out.push({
      type: 'tool_call',
      id: str(call.id) ?? '',
      name: str(fn.name) ?? '',
      arguments: str(fn.arguments) ?? '',
    });
  }
  return out;
}

function toolCallsOut(calls: readonly IrToolCall[]): Json[] {
  return calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
}

export function parseRequest(body: Json): Parsed<IrRequest> {
  const dropped: string[] = [];
  const ir = emptyRequest(str(body.model) ?? '');
  unknownKeys(body, KNOWN_REQUEST_KEYS, dropped);
  for (const m of arr(body.messages)) {
    const msg = obj(m);
    if (!msg) continue;
    switch (msg.role) {
      case 'system':
      case 'developer':
        ir.system.push(textParts(msg.content, dropped));
        break;
      case 'user':
        for (const p of userParts(msg.content, dropped)) pushPart(ir.messages, 'user', p);
        if (ir.messages.at(-1)?.role !== 'user') ir.messages.push({ role: 'user', parts: [] });
        break;
      case 'assistant': {
        const parts: IrPart[] = [];
        const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
        if (reasoning) parts.push({ type: 'reasoning', text: reasoning, signature: null });
        const text = textParts(msg.content, dropped);
        if (text !== '') parts.push({ type: 'text', text });
        parts.push(...toolCallsIn(msg.tool_calls));
        // Two assistant messages in a row stay two turns' worth of parts in one turn.
        if (ir.messages.at(-1)?.role === 'assistant') ir.messages.at(-1)!.parts.push(...parts);
        else ir.messages.push({ role: 'assistant', parts });
        break;
      }
      case 'tool':
        pushPart(ir.messages, 'user', {
          type: 'tool_result',
          callId: str(msg.tool_call_id) ?? '',
          content: userParts(msg.content, dropped),
          isError: false,
        });
        break;
      default:
        dropped.push(`${String(msg.role)} message`);
    }
  }
  for (const t of arr(body.tools)) {
    const fn = obj(obj(t)?.function);
    if (obj(t)?.type !== 'function' || !fn) {
      dropped.push(`tools[${String(obj(t)?.type)}]`);
      continue;
    }
    ir.tools.push({
      name: str(fn.name) ?? '',
      description: str(fn.description),
      parameters: obj(fn.parameters) ?? { type: 'object', properties: {} },
    });
  }
  const tc = body.tool_choice;
  if (tc === 'auto' || tc === 'none' || tc === 'required') ir.toolChoice = { type: tc };
  else if (obj(tc)) {
    ir.toolChoice = { type: 'tool', name: str(obj(obj(tc)!.function)?.name) ?? '' };
  }
  if (typeof body.parallel_tool_calls === 'boolean')
    ir.parallelToolCalls = body.parallel_tool_calls;
  ir.maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens);
  ir.temperature = num(body.temperature);
  ir.topP = num(body.top_p);
  if (typeof body.stop === 'string') ir.stop = [body.stop];
  else ir.stop = arr(body.stop).filter((s): s is string => typeof s === 'string');
  ir.stream = body.stream === true;
  const effort = str(body.reasoning_effort);
  if (effort && EFFORTS.has(effort))
    ir.reasoning = { effort: effort as Effort, budgetTokens: null };
  const rf = obj(body.response_format);
  if (rf?.type === 'json_object') ir.responseFormat = { type: 'json_object' };
  else if (rf?.type === 'json_schema') {
    const js = obj(rf.json_schema) ?? {};
    ir.responseFormat = {
      type: 'json_schema',
      name: str(js.name) ?? 'response',
      schema: obj(js.schema) ?? {},
      strict: typeof js.strict === 'boolean' ? js.strict : null,
    };
  }
  if (num(body.n) !== null && body.n !== 1) dropped.push('n');
  ir.user = str(body.user);
  return { value: ir, dropped };
}

export interface ChatEmitOptions {
  /** OpenAI's own API wants `max_completion_tokens`; most compatible servers know `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

function contentOf(parts: (IrText | IrImage)[]): string | Json[] {
  if (parts.every((p) => p.type === 'text')) return textOf(parts);
  return parts.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'image_url', image_url: { url: imageUrlOf(p) } },
  );
}

export function emitRequest(
  ir: IrRequest,
  opts: ChatEmitOptions = { maxTokensField: 'max_tokens' },
): Parsed<Json> {
  const dropped: string[] = [];
  const messages: Json[] = ir.system.map((content) => ({ role: 'system', content }));
  for (const m of ir.messages) {
    if (m.role === 'assistant') {
      const msg: Json = { role: 'assistant', content: null };
      const text = textOf(m.parts);
      if (text !== '') msg.content = text;
      const calls = m.parts.filter((p) => p.type === 'tool_call');
      if (calls.length > 0) msg.tool_calls = toolCallsOut(calls);
      if (m.parts.some((p) => p.type === 'reasoning') && !dropped.includes('reasoning history')) {
        dropped.push('reasoning history');
      }
      if (msg.content === null && !msg.tool_calls) msg.content = '';
      messages.push(msg);
      continue;
    }
    let pending: (IrText | IrImage)[] = [];
    const flush = () => {
      if (pending.length > 0) messages.push({ role: 'user', content: contentOf(pending) });
      pending = [];
    };
    for (const p of m.parts) {
      if (p.type === 'tool_result') {
        flush();
        if (p.content.some((c) => c.type === 'image')) dropped.push('tool_result image');
        messages.push({ role: 'tool', tool_call_id: p.callId, content: resultText(p) });
      } else if (p.type === 'text' || p.type === 'image') pending.push(p);
    }
    flush();
    if (m.parts.length === 0) messages.push({ role: 'user', content: '' });
  }
  const out: Json = { model: ir.model, messages };
  if (ir.tools.length > 0) {
    out.tools = ir.tools.map((t) => ({ type: 'function', function: functionFields(t) }));
  }
  const c = ir.toolChoice;
  if (c) {
    out.tool_choice = c.type === 'tool' ? { type: 'function', function: { name: c.name } } : c.type;
  }
  if (ir.parallelToolCalls !== null && ir.tools.length > 0) {
    out.parallel_tool_calls = ir.parallelToolCalls;
  }
  if (ir.maxTokens !== null) out[opts.maxTokensField] = ir.maxTokens;
  if (ir.temperature !== null) out.temperature = ir.temperature;
  if (ir.topP !== null) out.top_p = ir.topP;
  if (ir.stop.length > 0) out.stop = ir.stop;
  if (ir.reasoning) out.reasoning_effort = effortFor(ir.reasoning);
  const rf = ir.responseFormat;
  if (rf?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (rf) {
    out.response_format = { type: 'json_schema', json_schema: jsonSchemaFields(rf) };
  }
  if (ir.user) out.user = ir.user;
  if (ir.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return { value: out, dropped };
}

// --- responses --------------------------------------------------------------------------------

const STOP_IN: Record<string, IrStop> = {
  stop: 'end',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

const STOP_OUT: Record<IrStop, string> = {
  end: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
};

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  out.input = num(usage.prompt_tokens);
  out.output = num(usage.completion_tokens);
  out.cached = num(obj(usage.prompt_tokens_details)?.cached_tokens);
  out.reasoning = num(obj(usage.completion_tokens_details)?.reasoning_tokens);
  return out;
}

export function usageOut(u: IrUsage): Json {
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: u.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  };
}

export function parseResponse(body: Json): IrResponse {
  const choice = obj(arr(body.choices)[0]) ?? {};
  const msg = obj(choice.message) ?? {};
  const parts: IrResponse['parts'] = [];
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning, signature: null });
  const text = textParts(msg.content, []);
  if (text !== '') parts.push({ type: 'text', text });
  else if (typeof msg.refusal === 'string') parts.push({ type: 'text', text: msg.refusal });
  parts.push(...toolCallsIn(msg.tool_calls));
  let stop = STOP_IN[str(choice.finish_reason) ?? ''] ?? 'end';
  if (typeof msg.refusal === 'string' && text === '') stop = 'refusal';
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop,
    stopSequence: null,
    usage: usageIn(body.usage),
  };
}

export function emitResponse(ir: IrResponse, created: number): Json {
  const message: Json = { role: 'assistant', content: null, refusal: null };
  const text = textOf(ir.parts);
  if (text !== '') message.content = text;
  const reasoning = ir.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  const calls = ir.parts.filter((p) => p.type === 'tool_call');
  if (calls.length > 0) message.tool_calls = toolCallsOut(calls);
  return {
    id: ir.id,
    object: 'chat.completion',
    created,
    model: ir.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: STOP_OUT[ir.stop === 'end' && calls.length > 0 ? 'tool_use' : ir.stop],
      },
    ],
    usage: usageOut(ir.usage),
  };
}

// --- errors -----------------------------------------------------------------------------------

/** An OpenAI error object (`{error:{message, type, code, param}}`) as an IR error. */
export function parseError(status: number, body: unknown): IrError | null {
  return openAiErrorOf(status, obj(obj(body)?.error));
}

// --- streams ----------------------------------------------------------------------------------

export function createStreamParser(): StreamParser {
  let started = false;
  let done = false;
  let stopped = false;
  const known = new Set<number>();
  let nextAnon = 1000;
  return {
    push(_event, data) {
      if (data === '[DONE]') {
        done = true;
        return [];
      }
      const c = eventJson(data);
      if (c === undefined) return [];
      const out: IrEvent[] = [];
      if (obj(c.error)) {
        done = true;
        return [
          { type: 'error', error: parseError(500, c) ?? unreadableStreamError('upstream_error') },
        ];
      }
      if (!started) {
        started = true;
        out.push({ type: 'start', id: str(c.id) ?? '', model: str(c.model) ?? '', usage: null });
      }
      const choice = obj(arr(c.choices)[0]);
      if (choice) {
        const d = obj(choice.delta) ?? {};
        const reasoning = str(d.reasoning_content) ?? str(d.reasoning);
        if (reasoning) out.push({ type: 'reasoning', text: reasoning });
        if (typeof d.content === 'string' && d.content !== '') {
          out.push({ type: 'text', text: d.content });
        }
        for (const t of arr(d.tool_calls)) {
          const tc = obj(t);
          if (!tc) continue;
          const fn = obj(tc.function) ?? {};
          const index = num(tc.index) ?? nextAnon++;
          if (!known.has(index)) {
            known.add(index);
            out.push({
              type: 'tool_start',
              index,
              id: str(tc.id) ?? `call_${index}`,
              name: str(fn.name) ?? '',
            });
          }
          const args = str(fn.arguments);
          if (args) out.push({ type: 'tool_args', index, delta: args });
        }
        const finish = str(choice.finish_reason);
        if (finish) {
          stopped = true;
          out.push({ type: 'stop', stop: STOP_IN[finish] ?? 'end', stopSequence: null });
        }
      }
      if (obj(c.usage)) out.push({ type: 'usage', usage: usageIn(c.usage) });
      return out;
    },
    end() {
      return done || stopped ? [] : [incompleteError()];
    },
  };
}

export interface ChatWriterOptions {
  created: number;
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean;
}

export function createStreamWriter(opts: ChatWriterOptions): StreamWriter {
  let id = 'chatcmpl-breakwater';
  let model = '';
  let started = false;
  let stopped = false;
  let sawTool = false;
  const usage = emptyUsage();
  const tools = new Map<number, number>();
  const chunk = (delta: Json, finish: string | null): string =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: opts.created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const start = (): string => {
    started = true;
    return chunk({ role: 'assistant', content: '' }, null);
  };
  return {
    write(ev) {
      switch (ev.type) {
        case 'start':
          if (started) return '';
          id = ev.id || id;
          model = ev.model;
          if (ev.usage) mergeIrUsage(usage, ev.usage);
          return start();
        case 'text':
          return ev.text === '' ? '' : chunk({ content: ev.text }, null);
        case 'reasoning':
          return ev.text === '' ? '' : chunk({ reasoning_content: ev.text }, null);
        case 'reasoning_signature':
          return '';
        case 'tool_start': {
          sawTool = true;
          const i = tools.size;
          tools.set(ev.index, i);
          return chunk(
            {
              tool_calls: [
                {
                  index: i,
                  id: ev.id,
                  type: 'function',
                  function: { name: ev.name, arguments: '' },
                },
              ],
            },
            null,
          );
        }
        case 'tool_args': {
          const i = tools.get(ev.index);
          if (i === undefined || ev.delta === '') return '';
          return chunk({ tool_calls: [{ index: i, function: { arguments: ev.delta } }] }, null);
        }
        case 'usage':
          mergeIrUsage(usage, ev.usage);
          return '';
        case 'stop':
          if (stopped) return '';
          stopped = true;
          return chunk({}, STOP_OUT[ev.stop === 'end' && sawTool ? 'tool_use' : ev.stop]);
        case 'error':
          return streamErrorEvent('openai-chat', gatewayErrorOf(ev.error));
      }
    },
    finish() {
      let s = started ? '' : start();
      if (!stopped) s += chunk({}, sawTool ? 'tool_calls' : 'stop');
      if (opts.includeUsage) {
        s += `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created: opts.created,
          model,
          choices: [],
          usage: usageOut(usage),
        })}\n\n`;
      }
      return `${s}data: [DONE]\n\n`;
    },
  };
}
