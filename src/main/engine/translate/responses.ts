// OpenAI Responses ↔ IR. https://platform.openai.com/docs/api-reference/responses
import { errorBody } from '../wire/client-errors';
import { gatewayErrorOf, openAiErrorOf, unreadableStreamError } from './errors';
import {
  arr,
  customInput,
  type Effort,
  effortFor,
  emptyRequest,
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrImage,
  type IrRequest,
  type IrResponse,
  type IrStop,
  type IrText,
  type IrTool,
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
  TranslationError,
  textOf,
  unknownKeys,
} from './ir';
import { functionFields, jsonSchemaFields } from './openai-fields';
import { eventJson } from './stream';

const KNOWN_REQUEST_KEYS = new Set([
  'model',
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'stream',
  'reasoning',
  'text',
  'user',
  // No effect on a translated answer: storage, extra output, caching hints.
  'store',
  'include',
  'metadata',
  'prompt_cache_key',
  'safety_identifier',
  'service_tier',
  'truncation',
  'stream_options',
]);

/** Fields that depend on state kept by OpenAI: dropping them would corrupt the conversation. */
const STATEFUL = ['previous_response_id', 'conversation', 'prompt', 'background'];

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

// --- requests ---------------------------------------------------------------------------------

function contentParts(content: unknown, dropped: string[]): (IrText | IrImage)[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: (IrText | IrImage)[] = [];
  for (const p of arr(content)) {
    const part = obj(p);
    if (!part) continue;
    if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') {
      out.push({ type: 'text', text: str(part.text) ?? '' });
    } else if (part.type === 'refusal') out.push({ type: 'text', text: str(part.refusal) ?? '' });
    else if (part.type === 'input_image' && typeof part.image_url === 'string') {
      out.push(imageFromUrl(part.image_url));
    } else dropped.push(`${String(part.type)} content`);
  }
  return out;
}

export function parseRequest(body: Json): Parsed<IrRequest> {
  for (const k of STATEFUL) {
    if (body[k] !== undefined && body[k] !== null && body[k] !== false) {
      throw new TranslationError(
        `\`${k}\` needs state stored by OpenAI, which the target provider does not have; ` +
          'send the whole conversation in `input` instead',
        k,
      );
    }
  }
  const dropped: string[] = [];
  const ir = emptyRequest(str(body.model) ?? '');
  unknownKeys(body, KNOWN_REQUEST_KEYS, dropped);
  if (typeof body.instructions === 'string') ir.system.push(body.instructions);
  const input =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arr(body.input);
  for (const i of input) {
    const item = obj(i);
    if (!item) continue;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role;
      const parts = contentParts(item.content, dropped);
      if (role === 'system' || role === 'developer') ir.system.push(textOf(parts));
      else if (role === 'assistant') for (const p of parts) pushPart(ir.messages, 'assistant', p);
      else {
        for (const p of parts) pushPart(ir.messages, 'user', p);
        if (ir.messages.at(-1)?.role !== 'user') ir.messages.push({ role: 'user', parts: [] });
      }
    } else if (type === 'function_call') {
      pushPart(ir.messages, 'assistant', {
        type: 'tool_call',
        id: str(item.call_id) ?? '',
        name: str(item.name) ?? '',
        arguments: str(item.arguments) ?? '',
      });
    } else if (type === 'custom_tool_call') {
      pushPart(ir.messages, 'assistant', {
        type: 'tool_call',
        id: str(item.call_id) ?? '',
        name: str(item.name) ?? '',
        arguments: JSON.stringify({ input: str(item.input) ?? '' }),
      });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const output = item.output;
      pushPart(ir.messages, 'user', {
        type: 'tool_result',
        callId: str(item.call_id) ?? '',
        content:
          typeof output === 'string'
            ? [{ type: 'text', text: output }]
            : contentParts(output, dropped),
        isError: false,
      });
    } else if (type === 'reasoning') {
      const text = arr(item.summary)
        .map((s) => str(obj(s)?.text) ?? '')
        .join('\n\n');
      pushPart(ir.messages, 'assistant', {
        type: 'reasoning',
        text,
        signature: str(item.encrypted_content),
      });
    } else if (type === 'item_reference') {
      throw new TranslationError(
        '`item_reference` input items need state stored by OpenAI; send the items themselves',
        'input',
      );
    } else dropped.push(`input[${String(type)}]`);
  }
  for (const t of arr(body.tools)) {
    const tool = obj(t);
    if (tool?.type === 'custom') {
      ir.tools.push(customTool(tool));
      continue;
    }
    if (tool?.type !== 'function') {
      dropped.push(`tools[${String(tool?.type)}]`);
      continue;
    }
    ir.tools.push({
      name: str(tool.name) ?? '',
      description: str(tool.description),
      parameters: obj(tool.parameters) ?? { type: 'object', properties: {} },
    });
  }
  const tc = body.tool_choice;
  if (tc === 'auto' || tc === 'none' || tc === 'required') ir.toolChoice = { type: tc };
  else if (obj(tc)?.type === 'function')
    ir.toolChoice = { type: 'tool', name: str(obj(tc)!.name) ?? '' };
  else if (tc !== undefined) dropped.push('tool_choice');
  if (typeof body.parallel_tool_calls === 'boolean')
    ir.parallelToolCalls = body.parallel_tool_calls;
  ir.maxTokens = num(body.max_output_tokens);
  ir.temperature = num(body.temperature);
  ir.topP = num(body.top_p);
  ir.stream = body.stream === true;
  const effort = str(obj(body.reasoning)?.effort);
  if (effort && EFFORTS.has(effort))
    ir.reasoning = { effort: effort as Effort, budgetTokens: null };
  const format = obj(obj(body.text)?.format);
  if (format?.type === 'json_object') ir.responseFormat = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    ir.responseFormat = {
      type: 'json_schema',
      name: str(format.name) ?? 'response',
      schema: obj(format.schema) ?? {},
      strict: typeof format.strict === 'boolean' ? format.strict : null,
    };
  }
  ir.user = str(body.user);
  return { value: ir, dropped };
}

/** A freeform tool as a function with one string argument; its grammar goes in the description. */
function customTool(tool: Json): IrTool {
  const format = obj(tool.format);
  const grammar =
    format?.type === 'grammar' && typeof format.definition === 'string'
      ? ` It must match this ${str(format.syntax) ?? ''} grammar:\n${format.definition}`
      : '';
  return {
    name: str(tool.name) ?? '',
    description: str(tool.description),
    parameters: {
      type: 'object',
      properties: {
        input: { type: 'string', description: `The raw input for this tool.${grammar}` },
      },
      required: ['input'],
      additionalProperties: false,
    },
    custom: true,
  };
}

function inputContent(parts: (IrText | IrImage)[], role: 'user' | 'assistant'): Json[] {
  return parts.map((p) =>
    p.type === 'text'
      ? { type: role === 'user' ? 'input_text' : 'output_text', text: p.text }
      : { type: 'input_image', image_url: imageUrlOf(p) },
  );
}

export function emitRequest(ir: IrRequest): Parsed<Json> {
  const dropped: string[] = [];
  const input: Json[] = [];
  for (const m of ir.messages) {
    let pending: (IrText | IrImage)[] = [];
    const flush = () => {
      if (pending.length > 0) {
        input.push({ type: 'message', role: m.role, content: inputContent(pending, m.role) });
      }
      pending = [];
    };
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'image') {
        if (m.role === 'assistant' && p.type === 'image') dropped.push('assistant image');
        else pending.push(p);
        continue;
      }
      flush();
      if (p.type === 'tool_call') {
        input.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.arguments });
      } else if (p.type === 'tool_result') {
        const onlyText = p.content.every((c) => c.type === 'text');
        input.push({
          type: 'function_call_output',
          call_id: p.callId,
          output: onlyText ? resultText(p) : inputContent(p.content, 'user'),
        });
      } else if (p.signature) {
        input.push({
          type: 'reasoning',
          summary: p.text ? [{ type: 'summary_text', text: p.text }] : [],
          encrypted_content: p.signature,
        });
      } else if (!dropped.includes('reasoning history')) dropped.push('reasoning history');
    }
    flush();
  }
  const out: Json = { model: ir.model, input };
  if (ir.system.length > 0) out.instructions = ir.system.join('\n\n');
  if (ir.tools.length > 0) {
    out.tools = ir.tools.map((t) => ({ type: 'function', ...functionFields(t) }));
  }
  const c = ir.toolChoice;
  if (c) out.tool_choice = c.type === 'tool' ? { type: 'function', name: c.name } : c.type;
  if (ir.parallelToolCalls !== null) out.parallel_tool_calls = ir.parallelToolCalls;
  if (ir.maxTokens !== null) out.max_output_tokens = ir.maxTokens;
  if (ir.temperature !== null) out.temperature = ir.temperature;
  if (ir.topP !== null) out.top_p = ir.topP;
  if (ir.stop.length > 0) dropped.push('stop');
  if (ir.reasoning) out.reasoning = { effort: effortFor(ir.reasoning) };
  const rf = ir.responseFormat;
  if (rf?.type === 'json_object') out.text = { format: { type: 'json_object' } };
  else if (rf) {
    out.text = { format: { type: 'json_schema', ...jsonSchemaFields(rf) } };
  }
  if (ir.user) out.user = ir.user;
  if (ir.stream) out.stream = true;
  out.store = false;
  return { value: out, dropped };
}

// --- responses --------------------------------------------------------------------------------

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  out.input = num(usage.input_tokens);
  out.output = num(usage.output_tokens);
  out.cached = num(obj(usage.input_tokens_details)?.cached_tokens);
  out.reasoning = num(obj(usage.output_tokens_details)?.reasoning_tokens);
  return out;
}

export function usageOut(u: IrUsage): Json {
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: input + output,
  };
}

function stopOf(body: Json, hasTool: boolean): IrStop {
  if (body.status === 'incomplete') {
    const reason = str(obj(body.incomplete_details)?.reason);
    return reason === 'content_filter' ? 'content_filter' : 'max_tokens';
  }
  return hasTool ? 'tool_use' : 'end';
}

function outputParts(output: unknown): IrResponse['parts'] {
  const parts: IrResponse['parts'] = [];
  for (const o of arr(output)) {
    const item = obj(o);
    if (!item) continue;
    if (item.type === 'message') {
      const text = textOf(contentParts(item.content, []));
      if (text !== '') parts.push({ type: 'text', text });
    } else if (item.type === 'function_call') {
      parts.push({
        type: 'tool_call',
        id: str(item.call_id) ?? '',
        name: str(item.name) ?? '',
        arguments: str(item.arguments) ?? '',
      });
    } else if (item.type === 'reasoning') {
      parts.push({
        type: 'reasoning',
        text: arr(item.summary)
          .map((s) => str(obj(s)?.text) ?? '')
          .join('\n\n'),
        signature: str(item.encrypted_content),
      });
    }
  }
  return parts;
}

export function parseResponse(body: Json): IrResponse {
  const parts = outputParts(body.output);
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop: stopOf(
      body,
      parts.some((p) => p.type === 'tool_call'),
    ),
    stopSequence: null,
    usage: usageIn(body.usage),
  };
}

function responseObject(
  id: string,
  model: string,
  createdAt: number,
  status: string,
  output: Json[],
  usage: Json | null,
  stop: IrStop | null,
): Json {
  const incomplete = stop === 'max_tokens' || stop === 'content_filter';
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: status === 'completed' && incomplete ? 'incomplete' : status,
    error: null,
    incomplete_details: incomplete
      ? { reason: stop === 'max_tokens' ? 'max_output_tokens' : 'content_filter' }
      : null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
}

const itemId = (prefix: string, responseId: string, n: number): string =>
  `${prefix}_${responseId.replace(/[^A-Za-z0-9]/g, '').slice(-24)}${n}`;

function outputItem(p: IrResponse['parts'][number], id: string, custom: ReadonlySet<string>): Json {
  if (p.type === 'text') {
    return {
      id,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: p.text, annotations: [], logprobs: [] }],
    };
  }
  if (p.type === 'reasoning') {
    return {
      id,
      type: 'reasoning',
      summary: p.text ? [{ type: 'summary_text', text: p.text }] : [],
      ...(p.signature ? { encrypted_content: p.signature } : {}),
    };
  }
  if (custom.has(p.name)) {
    return {
      id,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: p.id,
      name: p.name,
      input: customInput(p.arguments),
    };
  }
  return {
    id,
    type: 'function_call',
    status: 'completed',
    call_id: p.id,
    name: p.name,
    arguments: p.arguments,
  };
}

/** `custom`: names of the request's freeform tools, whose calls are `custom_tool_call` items. */
export function emitResponse(
  ir: IrResponse,
  createdAt: number,
  custom: ReadonlySet<string> = new Set(),
): Json {
  const prefix = { text: 'msg', reasoning: 'rs', tool_call: 'fc' } as const;
  const output = ir.parts.map((p, i) => outputItem(p, itemId(prefix[p.type], ir.id, i), custom));
  return responseObject(
    ir.id,
    ir.model,
    createdAt,
    'completed',
    output,
    usageOut(ir.usage),
    ir.stop,
  );
}

// --- errors -----------------------------------------------------------------------------------

export function parseError(status: number, body: unknown): IrError | null {
  const root = obj(body);
  return openAiErrorOf(status, obj(root?.error) ?? (root?.type === 'error' ? root : null));
}

// --- streams ----------------------------------------------------------------------------------

export function createStreamParser(): StreamParser {
  let done = false;
  let sawTool = false;
  return {
    push(event, data) {
      const e = eventJson(data);
      if (e === undefined) return [];
      const type = str(e.type) ?? event;
      switch (type) {
        case 'response.created': {
          const r = obj(e.response) ?? {};
          return [{ type: 'start', id: str(r.id) ?? '', model: str(r.model) ?? '', usage: null }];
        }
        case 'response.output_item.added': {
          const item = obj(e.item) ?? {};
          if (item.type !== 'function_call') return [];
          sawTool = true;
          const index = num(e.output_index) ?? 0;
          const out: IrEvent[] = [
            { type: 'tool_start', index, id: str(item.call_id) ?? '', name: str(item.name) ?? '' },
          ];
          if (typeof item.arguments === 'string' && item.arguments !== '') {
            out.push({ type: 'tool_args', index, delta: item.arguments });
          }
          return out;
        }
        case 'response.output_text.delta':
        case 'response.refusal.delta':
          return [{ type: 'text', text: str(e.delta) ?? '' }];
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          return [{ type: 'reasoning', text: str(e.delta) ?? '' }];
        case 'response.function_call_arguments.delta':
          return [
            { type: 'tool_args', index: num(e.output_index) ?? 0, delta: str(e.delta) ?? '' },
          ];
        case 'response.output_item.done': {
          const item = obj(e.item) ?? {};
          if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') {
            return [{ type: 'reasoning_signature', signature: item.encrypted_content }];
          }
          return [];
        }
        case 'response.completed':
        case 'response.incomplete': {
          done = true;
          const r = obj(e.response) ?? {};
          return [
            { type: 'usage', usage: usageIn(r.usage) },
            { type: 'stop', stop: stopOf(r, sawTool), stopSequence: null },
          ];
        }
        case 'response.failed': {
          done = true;
          const err = obj(obj(e.response)?.error) ?? {};
          return [
            {
              type: 'error',
              error: {
                status: 500,
                kind: 'upstream',
                code: str(err.code) ?? 'response_failed',
                message: str(err.message) ?? 'the response failed',
              },
            },
          ];
        }
        case 'error':
          done = true;
          return [
            {
              type: 'error',
              error: parseError(500, e) ?? unreadableStreamError('upstream_error'),
            },
          ];
        default:
          return [];
      }
    },
    end() {
      return done ? [] : [incompleteError()];
    },
  };
}

interface OpenItem {
  kind: 'message' | 'reasoning' | 'function_call' | 'custom_tool_call';
  id: string;
  outputIndex: number;
  text: string;
  signature: string | null;
  callId: string;
  name: string;
  closed: boolean;
}

export function createStreamWriter(opts: {
  createdAt: number;
  /** Names of freeform tools: their calls become `custom_tool_call` items. */
  custom?: ReadonlySet<string>;
}): StreamWriter {
  let seq = 0;
  let id = 'resp_breakwater';
  let model = '';
  let started = false;
  let stop: IrStop | null = null;
  const usage = emptyUsage();
  const items: OpenItem[] = [];
  let current: OpenItem | null = null;
  const tools = new Map<number, OpenItem>();

  const ev = (type: string, fields: Json): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`;
  const snapshot = (it: OpenItem): Json => {
    if (it.kind === 'message') {
      return {
        id: it.id,
        type: 'message',
        status: it.closed ? 'completed' : 'in_progress',
        role: 'assistant',
        content: it.closed
          ? [{ type: 'output_text', text: it.text, annotations: [], logprobs: [] }]
          : [],
      };
    }
    if (it.kind === 'reasoning') {
      return {
        id: it.id,
        type: 'reasoning',
        summary: it.closed && it.text ? [{ type: 'summary_text', text: it.text }] : [],
        ...(it.closed && it.signature ? { encrypted_content: it.signature } : {}),
      };
    }
    if (it.kind === 'custom_tool_call') {
      return {
        id: it.id,
        type: 'custom_tool_call',
        status: it.closed ? 'completed' : 'in_progress',
        call_id: it.callId,
        name: it.name,
        input: it.closed ? customInput(it.text) : '',
      };
    }
    return {
      id: it.id,
      type: 'function_call',
      status: it.closed ? 'completed' : 'in_progress',
      call_id: it.callId,
      name: it.name,
      arguments: it.closed ? it.text : '',
    };
  };
  const start = (): string => {
    started = true;
    const r = responseObject(id, model, opts.createdAt, 'in_progress', [], null, null);
    return ev('response.created', { response: r }) + ev('response.in_progress', { response: r });
  };
  const closeCurrent = (): string => {
    const it = current;
    current = null;
    if (!it || it.closed) return '';
    it.closed = true;
    const loc = { item_id: it.id, output_index: it.outputIndex };
    let s = '';
    if (it.kind === 'message') {
      const part = { type: 'output_text', text: it.text, annotations: [], logprobs: [] };
      s += ev('response.output_text.done', {
        ...loc,
        content_index: 0,
        text: it.text,
        logprobs: [],
      });
      s += ev('response.content_part.done', { ...loc, content_index: 0, part });
    } else if (it.kind === 'reasoning') {
      if (it.text) {
        s += ev('response.reasoning_summary_text.done', {
          ...loc,
          summary_index: 0,
          text: it.text,
        });
        s += ev('response.reasoning_summary_part.done', {
          ...loc,
          summary_index: 0,
          part: { type: 'summary_text', text: it.text },
        });
      }
    } else if (it.kind === 'custom_tool_call') {
      // The input arrives as JSON fragments of `{"input": …}`: it is sent whole, once complete.
      const input = customInput(it.text);
      s += ev('response.custom_tool_call_input.delta', { ...loc, delta: input });
      s += ev('response.custom_tool_call_input.done', { ...loc, input });
    } else {
      s += ev('response.function_call_arguments.done', { ...loc, arguments: it.text });
    }
    return (
      s + ev('response.output_item.done', { output_index: it.outputIndex, item: snapshot(it) })
    );
  };
  const open = (kind: OpenItem['kind'], callId = '', name = ''): string => {
    let s = closeCurrent();
    const prefix =
      kind === 'message'
        ? 'msg'
        : kind === 'reasoning'
          ? 'rs'
          : kind === 'custom_tool_call'
            ? 'ctc'
            : 'fc';
    const it: OpenItem = {
      kind,
      id: itemId(prefix, id, items.length),
      outputIndex: items.length,
      text: '',
      signature: null,
      callId,
      name,
      closed: false,
    };
    items.push(it);
    current = it;
    s += ev('response.output_item.added', { output_index: it.outputIndex, item: snapshot(it) });
    if (kind === 'message') {
      s += ev('response.content_part.added', {
        item_id: it.id,
        output_index: it.outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    return s;
  };

  return {
    write(e) {
      switch (e.type) {
        case 'start':
          if (started) return '';
          id = e.id || id;
          model = e.model;
          if (e.usage) mergeIrUsage(usage, e.usage);
          return start();
        case 'text': {
          if (e.text === '') return '';
          const s = current?.kind === 'message' ? '' : open('message');
          const it = current!;
          it.text += e.text;
          return (
            s +
            ev('response.output_text.delta', {
              item_id: it.id,
              output_index: it.outputIndex,
              content_index: 0,
              delta: e.text,
              logprobs: [],
            })
          );
        }
        case 'reasoning': {
          if (e.text === '') return '';
          let s = '';
          if (current?.kind !== 'reasoning') s += open('reasoning');
          const it = current!;
          if (it.text === '') {
            s += ev('response.reasoning_summary_part.added', {
              item_id: it.id,
              output_index: it.outputIndex,
              summary_index: 0,
              part: { type: 'summary_text', text: '' },
            });
          }
          it.text += e.text;
          return (
            s +
            ev('response.reasoning_summary_text.delta', {
              item_id: it.id,
              output_index: it.outputIndex,
              summary_index: 0,
              delta: e.text,
            })
          );
        }
        case 'reasoning_signature': {
          const s = current?.kind === 'reasoning' ? '' : open('reasoning');
          current!.signature = (current!.signature ?? '') + e.signature;
          return s;
        }
        case 'tool_start': {
          const kind = opts.custom?.has(e.name) ? 'custom_tool_call' : 'function_call';
          const s = open(kind, e.id, e.name);
          tools.set(e.index, current!);
          return s;
        }
        case 'tool_args': {
          const it = tools.get(e.index);
          if (!it || e.delta === '') return '';
          it.text += e.delta;
          if (it.closed || it.kind === 'custom_tool_call') return '';
          return ev('response.function_call_arguments.delta', {
            item_id: it.id,
            output_index: it.outputIndex,
            delta: e.delta,
          });
        }
        case 'usage':
          mergeIrUsage(usage, e.usage);
          return '';
        case 'stop':
          stop = e.stop;
          return '';
        case 'error': {
          const body = errorBody('openai-responses', gatewayErrorOf(e.error)) as { error: Json };
          return ev('error', {
            code: body.error.code,
            message: body.error.message,
            param: null,
          });
        }
      }
    },
    finish() {
      let s = started ? '' : start();
      s += closeCurrent();
      for (const it of items) {
        if (!it.closed) {
          current = it;
          s += closeCurrent();
        }
      }
      const r = responseObject(
        id,
        model,
        opts.createdAt,
        'completed',
        items.map(snapshot),
        usageOut(usage),
        stop,
      );
      const type = r.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
      return s + ev(type, { response: r });
    },
  };
}
