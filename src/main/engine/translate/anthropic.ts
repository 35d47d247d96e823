// Anthropic Messages ↔ IR. https://docs.anthropic.com/en/api/messages
import { type ErrorKind, streamErrorEvent } from '../wire/client-errors';
import { gatewayErrorOf, unreadableStreamError } from './errors';
import {
  argumentsObject,
  arr,
  budgetFor,
  emptyRequest,
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrImage,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrResponse,
  type IrStop,
  type IrText,
  type IrToolChoice,
  type IrUsage,
  incompleteError,
  type Json,
  mergeIrUsage,
  num,
  obj,
  type Parsed,
  pushPart,
  type StreamParser,
  type StreamWriter,
  str,
  unknownKeys,
} from './ir';
import { eventJson } from './stream';

const KNOWN_REQUEST_KEYS = new Set([
  'model',
  'system',
  'messages',
  'tools',
  'tool_choice',
  'max_tokens',
  'temperature',
  'top_p',
  'stop_sequences',
  'stream',
  'thinking',
  'metadata',
]);

/** Default when the client's format does not require max_tokens and it sent none. */
export const DEFAULT_MAX_TOKENS = 8192;

// --- requests ---------------------------------------------------------------------------------

function imageOf(block: Json): IrImage | null {
  const src = obj(block.source);
  if (!src) return null;
  if (src.type === 'base64') {
    return {
      type: 'image',
      url: null,
      mediaType: str(src.media_type),
      data: str(src.data) ?? '',
    };
  }
  if (src.type === 'url')
    return { type: 'image', url: str(src.url) ?? '', mediaType: null, data: null };
  return null;
}

function contentBlocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arr(content).map((b) => obj(b) ?? {});
}

function noteCacheControl(block: Json, dropped: string[]): void {
  if (block.cache_control !== undefined) dropped.push('cache_control');
}

export function parseRequest(body: Json): Parsed<IrRequest> {
  const dropped: string[] = [];
  const ir = emptyRequest(str(body.model) ?? '');
  unknownKeys(body, KNOWN_REQUEST_KEYS, dropped);
  for (const b of contentBlocks(body.system)) {
    noteCacheControl(b, dropped);
    if (typeof b.text === 'string') ir.system.push(b.text);
  }
  for (const m of arr(body.messages)) {
    const msg = obj(m);
    if (!msg) continue;
    const role = msg.role === 'assistant' ? 'assistant' : 'user';
    const before = ir.messages.length;
    for (const b of contentBlocks(msg.content)) {
      noteCacheControl(b, dropped);
      const part = partOf(b, dropped);
      if (part) pushPart(ir.messages, role, part);
    }
    // An empty turn still separates two turns of the other role.
    if (ir.messages.length === before && ir.messages.at(-1)?.role !== role) {
      ir.messages.push({ role, parts: [] });
    }
  }
  for (const t of arr(body.tools)) {
    const tool = obj(t);
    if (!tool) continue;
    noteCacheControl(tool, dropped);
    const schema = obj(tool.input_schema);
    if (!schema || (tool.type !== undefined && tool.type !== 'custom')) {
      dropped.push(`tools[${String(tool.type ?? tool.name)}]`);
      continue;
    }
    ir.tools.push({
      name: str(tool.name) ?? '',
      description: str(tool.description),
      parameters: schema,
    });
  }
  const choice = obj(body.tool_choice);
  if (choice) {
    if (choice.type === 'auto') ir.toolChoice = { type: 'auto' };
    else if (choice.type === 'any') ir.toolChoice = { type: 'required' };
    else if (choice.type === 'none') ir.toolChoice = { type: 'none' };
    else if (choice.type === 'tool') ir.toolChoice = { type: 'tool', name: str(choice.name) ?? '' };
    if (typeof choice.disable_parallel_tool_use === 'boolean') {
      ir.parallelToolCalls = !choice.disable_parallel_tool_use;
    }
  }
  ir.maxTokens = num(body.max_tokens);
  ir.temperature = num(body.temperature);
  ir.topP = num(body.top_p);
  ir.stop = arr(body.stop_sequences).filter((s): s is string => typeof s === 'string');
  ir.stream = body.stream === true;
  const thinking = obj(body.thinking);
  if (thinking?.type === 'enabled') {
    ir.reasoning = { effort: null, budgetTokens: num(thinking.budget_tokens) };
  }
  ir.user = str(obj(body.metadata)?.user_id);
  return { value: ir, dropped };
}

function partOf(b: Json, dropped: string[]): IrPart | null {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: str(b.text) ?? '' };
    case 'image': {
      const img = imageOf(b);
      if (!img) dropped.push('image source');
      return img;
    }
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(b.id) ?? '',
        name: str(b.name) ?? '',
        arguments: JSON.stringify(b.input ?? {}),
      };
    case 'tool_result': {
      const content: (IrText | IrImage)[] = [];
      for (const c of contentBlocks(b.content ?? '')) {
        if (c.type === 'text') content.push({ type: 'text', text: str(c.text) ?? '' });
        else if (c.type === 'image') {
          const img = imageOf(c);
          if (img) content.push(img);
        } else dropped.push(`tool_result ${String(c.type)}`);
      }
      return {
        type: 'tool_result',
        callId: str(b.tool_use_id) ?? '',
        content,
        isError: b.is_error === true,
      };
    }
    case 'thinking':
      return { type: 'reasoning', text: str(b.thinking) ?? '', signature: str(b.signature) };
    default:
      dropped.push(String(b.type));
      return null;
  }
}

function imageBlock(img: IrImage): Json {
  return img.url !== null
    ? { type: 'image', source: { type: 'url', url: img.url } }
    : {
        type: 'image',
        source: { type: 'base64', media_type: img.mediaType ?? 'image/png', data: img.data ?? '' },
      };
}

function toolChoiceOf(choice: IrToolChoice | null, parallel: boolean | null): Json | undefined {
  const base: Json | undefined =
    choice === null
      ? undefined
      : choice.type === 'auto'
        ? { type: 'auto' }
        : choice.type === 'none'
          ? { type: 'none' }
          : choice.type === 'required'
            ? { type: 'any' }
            : { type: 'tool', name: choice.name };
  if (parallel === false && base?.type !== 'none') {
    return { ...(base ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return base;
}

/** Whether the last assistant turn calls tools without a signed thinking block before them. */
function unsignedToolTurn(messages: IrMessage[]): boolean {
  const last = messages.findLast((m) => m.role === 'assistant');
  if (!last?.parts.some((p) => p.type === 'tool_call')) return false;
  return !last.parts.some((p) => p.type === 'reasoning' && p.signature);
}

export function emitRequest(ir: IrRequest): Parsed<Json> {
  const dropped: string[] = [];
  const out: Json = { model: ir.model };
  if (ir.system.length === 1) out.system = ir.system[0];
  else if (ir.system.length > 1) out.system = ir.system.map((text) => ({ type: 'text', text }));

  let maxTokens = ir.maxTokens ?? DEFAULT_MAX_TOKENS;
  let thinking: Json | null = null;
  if (ir.reasoning) {
    const forced = ir.toolChoice?.type === 'required' || ir.toolChoice?.type === 'tool';
    if (forced) dropped.push('reasoning (tool_choice forces a tool)');
    else if (unsignedToolTurn(ir.messages)) dropped.push('reasoning (unsigned tool turn)');
    else {
      let budget = Math.max(1024, budgetFor(ir.reasoning));
      if (ir.maxTokens === null) maxTokens = Math.max(maxTokens, budget + DEFAULT_MAX_TOKENS);
      if (budget >= maxTokens) budget = maxTokens - 1;
      if (budget < 1024) dropped.push('reasoning (max_tokens too small)');
      else thinking = { type: 'enabled', budget_tokens: budget };
    }
  }
  const messages: Json[] = [];
  for (const m of ir.messages) {
    const content: Json[] = [];
    for (const p of m.parts) {
      if (p.type === 'text') {
        if (p.text !== '') content.push({ type: 'text', text: p.text });
      } else if (p.type === 'image') content.push(imageBlock(p));
      else if (p.type === 'tool_call') {
        content.push({
          type: 'tool_use',
          id: p.id,
          name: p.name,
          input: argumentsObject(p.arguments),
        });
      } else if (p.type === 'tool_result') {
        const block: Json = {
          type: 'tool_result',
          tool_use_id: p.callId,
          content: p.content.map((c) =>
            c.type === 'text' ? { type: 'text', text: c.text } : imageBlock(c),
          ),
        };
        if (p.isError) block.is_error = true;
        content.push(block);
      } else if (p.signature) {
        content.push({ type: 'thinking', thinking: p.text, signature: p.signature });
      } else if (!dropped.includes('reasoning history')) dropped.push('reasoning history');
    }
    const prev = messages.at(-1);
    if (prev && prev.role === m.role) (prev.content as Json[]).push(...content);
    else messages.push({ role: m.role, content });
  }
  for (const m of messages) {
    // Anthropic refuses empty turns; a placeholder keeps the alternation the client sent.
    if ((m.content as Json[]).length === 0) (m.content as Json[]).push({ type: 'text', text: '.' });
  }
  out.messages = messages;
  out.max_tokens = maxTokens;
  if (thinking) {
    out.thinking = thinking;
    if (ir.temperature !== null && ir.temperature !== 1) dropped.push('temperature');
    if (ir.topP !== null && ir.topP >= 0.95) out.top_p = ir.topP;
    else if (ir.topP !== null) dropped.push('top_p');
  } else {
    if (ir.temperature !== null) out.temperature = Math.min(1, ir.temperature);
    // Anthropic's range ends at 1; OpenAI's at 2.
    if (ir.temperature !== null && ir.temperature > 1) dropped.push('temperature above 1');
    if (ir.topP !== null) out.top_p = ir.topP;
  }
  if (ir.stop.length > 0) out.stop_sequences = ir.stop;
  if (ir.tools.length > 0) {
    out.tools = ir.tools.map((t) => ({
      name: t.name,
      ...(t.description !== null ? { description: t.description } : {}),
      input_schema: { type: 'object', ...t.parameters },
    }));
  }
  const choice = toolChoiceOf(ir.toolChoice, ir.parallelToolCalls);
  if (choice && (ir.tools.length > 0 || choice.type === 'none')) out.tool_choice = choice;
  if (ir.responseFormat) dropped.push('response_format');
  if (ir.user) out.metadata = { user_id: ir.user };
  if (ir.stream) out.stream = true;
  return { value: out, dropped };
}

// --- responses --------------------------------------------------------------------------------

const STOP_IN: Record<string, IrStop> = {
  end_turn: 'end',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'max_tokens',
};

const STOP_OUT: Record<IrStop, string> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause: 'pause_turn',
  refusal: 'refusal',
  content_filter: 'refusal',
};

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  const input = num(usage.input_tokens);
  const cached = num(usage.cache_read_input_tokens);
  const creation = num(usage.cache_creation_input_tokens);
  if (input !== null) out.input = input + (cached ?? 0) + (creation ?? 0);
  out.output = num(usage.output_tokens);
  out.cached = cached;
  out.cacheCreation = creation;
  return out;
}

export function usageOut(u: IrUsage): Json {
  const cached = u.cached ?? 0;
  const creation = u.cacheCreation ?? 0;
  return {
    input_tokens: Math.max(0, (u.input ?? 0) - cached - creation),
    output_tokens: u.output ?? 0,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: cached,
  };
}

export function parseResponse(body: Json): IrResponse {
  const parts: IrResponse['parts'] = [];
  for (const b of arr(body.content)) {
    const block = obj(b);
    if (!block) continue;
    const part = partOf(block, []);
    if (part && part.type !== 'image' && part.type !== 'tool_result') parts.push(part);
  }
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop: STOP_IN[str(body.stop_reason) ?? ''] ?? 'end',
    stopSequence: str(body.stop_sequence),
    usage: usageIn(body.usage),
  };
}

export function emitResponse(ir: IrResponse): Json {
  return {
    id: ir.id,
    type: 'message',
    role: 'assistant',
    model: ir.model,
    content: ir.parts.map((p) =>
      p.type === 'text'
        ? { type: 'text', text: p.text }
        : p.type === 'reasoning'
          ? { type: 'thinking', thinking: p.text, signature: p.signature ?? '' }
          : { type: 'tool_use', id: p.id, name: p.name, input: argumentsObject(p.arguments) },
    ),
    // Some Chat servers finish a tool-calling turn with `stop`: the calls are what counts.
    stop_reason:
      STOP_OUT[
        ir.stop === 'end' && ir.parts.some((p) => p.type === 'tool_call') ? 'tool_use' : ir.stop
      ],
    stop_sequence: ir.stopSequence,
    usage: usageOut(ir.usage),
  };
}

// --- errors -----------------------------------------------------------------------------------

const KIND_OF_TYPE: Record<string, ErrorKind> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'too_large',
  rate_limit_error: 'rate_limit',
  api_error: 'upstream',
  overloaded_error: 'overloaded',
  timeout_error: 'timeout',
};

/** An Anthropic error object (`{type:'error', error:{type, message}}`) as an IR error. */
export function parseError(status: number, body: unknown): IrError | null {
  const err = obj(obj(body)?.error);
  if (!err || typeof err.message !== 'string') return null;
  const type = str(err.type) ?? 'api_error';
  return { status, kind: KIND_OF_TYPE[type] ?? 'upstream', code: type, message: err.message };
}

// --- streams ----------------------------------------------------------------------------------

const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function createStreamParser(): StreamParser {
  let done = false;
  const tools = new Set<number>();
  return {
    push(event, data) {
      const e = eventJson(data);
      if (e === undefined) return [];
      const type = str(e.type) ?? event;
      switch (type) {
        case 'message_start': {
          const m = obj(e.message) ?? {};
          return [
            {
              type: 'start',
              id: str(m.id) ?? '',
              model: str(m.model) ?? '',
              usage: usageIn(m.usage),
            },
          ];
        }
        case 'content_block_start': {
          const b = obj(e.content_block) ?? {};
          const index = num(e.index) ?? 0;
          if (b.type === 'tool_use') {
            tools.add(index);
            return [{ type: 'tool_start', index, id: str(b.id) ?? '', name: str(b.name) ?? '' }];
          }
          if (b.type === 'text' && typeof b.text === 'string' && b.text !== '') {
            return [{ type: 'text', text: b.text }];
          }
          if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking !== '') {
            return [{ type: 'reasoning', text: b.thinking }];
          }
          return [];
        }
        case 'content_block_delta': {
          const d = obj(e.delta) ?? {};
          if (d.type === 'text_delta') return [{ type: 'text', text: str(d.text) ?? '' }];
          if (d.type === 'thinking_delta')
            return [{ type: 'reasoning', text: str(d.thinking) ?? '' }];
          if (d.type === 'signature_delta') {
            return [{ type: 'reasoning_signature', signature: str(d.signature) ?? '' }];
          }
          if (d.type === 'input_json_delta') {
            const index = num(e.index) ?? 0;
            if (!tools.has(index)) return [];
            return [{ type: 'tool_args', index, delta: str(d.partial_json) ?? '' }];
          }
          return [];
        }
        case 'message_delta': {
          const d = obj(e.delta) ?? {};
          const out: IrEvent[] = [{ type: 'usage', usage: usageIn(e.usage) }];
          // message_delta's usage may omit input tokens: never report them as zero.
          const u = out[0] as { usage: IrUsage };
          if (obj(e.usage)?.input_tokens === undefined) u.usage.input = null;
          if (d.stop_reason) {
            out.push({
              type: 'stop',
              stop: STOP_IN[str(d.stop_reason) ?? ''] ?? 'end',
              stopSequence: str(d.stop_sequence),
            });
          }
          return out;
        }
        case 'message_stop':
          done = true;
          return [];
        case 'error': {
          done = true;
          const err = parseError(500, e) ?? unreadableStreamError('api_error');
          return [{ type: 'error', error: err }];
        }
        default:
          return [];
      }
    },
    end() {
      return done ? [] : [incompleteError()];
    },
  };
}

type Block = 'text' | 'thinking' | 'tool_use';

export function createStreamWriter(): StreamWriter {
  let started = false;
  let index = -1;
  let open: Block | null = null;
  const toolBlocks = new Map<number, number>();
  const usage = emptyUsage();
  let stop: IrStop | null = null;
  let stopSequence: string | null = null;
  let sawTool = false;

  const close = (): string => {
    if (open === null) return '';
    open = null;
    return sse('content_block_stop', { type: 'content_block_stop', index });
  };
  const openBlock = (kind: Block, block: Json): string => {
    const s = close();
    index++;
    open = kind;
    return `${s}${sse('content_block_start', { type: 'content_block_start', index, content_block: block })}`;
  };
  const delta = (i: number, d: Json): string =>
    sse('content_block_delta', { type: 'content_block_delta', index: i, delta: d });
  const start = (id: string, model: string): string => {
    started = true;
    return sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageOut(usage),
      },
    });
  };

  return {
    write(ev) {
      switch (ev.type) {
        case 'start':
          if (ev.usage) mergeIrUsage(usage, ev.usage);
          return started ? '' : start(ev.id, ev.model);
        case 'text':
          if (ev.text === '') return '';
          return (
            (open === 'text' ? '' : openBlock('text', { type: 'text', text: '' })) +
            delta(index, { type: 'text_delta', text: ev.text })
          );
        case 'reasoning':
          if (ev.text === '') return '';
          return (
            (open === 'thinking'
              ? ''
              : openBlock('thinking', { type: 'thinking', thinking: '', signature: '' })) +
            delta(index, { type: 'thinking_delta', thinking: ev.text })
          );
        case 'reasoning_signature':
          return (
            (open === 'thinking'
              ? ''
              : openBlock('thinking', { type: 'thinking', thinking: '', signature: '' })) +
            delta(index, { type: 'signature_delta', signature: ev.signature })
          );
        case 'tool_start': {
          sawTool = true;
          const s = openBlock('tool_use', {
            type: 'tool_use',
            id: ev.id,
            name: ev.name,
            input: {},
          });
          toolBlocks.set(ev.index, index);
          return s;
        }
        case 'tool_args': {
          const i = toolBlocks.get(ev.index);
          if (i === undefined || ev.delta === '') return '';
          return delta(i, { type: 'input_json_delta', partial_json: ev.delta });
        }
        case 'usage':
          mergeIrUsage(usage, ev.usage);
          return '';
        case 'stop':
          stop = ev.stop;
          stopSequence = ev.stopSequence;
          return '';
        case 'error':
          return streamErrorEvent('anthropic', gatewayErrorOf(ev.error));
      }
    },
    finish() {
      const head = started ? '' : start('msg_breakwater', '');
      const u = usageOut(usage);
      return `${head}${close()}${sse('message_delta', {
        type: 'message_delta',
        delta: {
          stop_reason:
            STOP_OUT[(stop ?? 'end') === 'end' && sawTool ? 'tool_use' : (stop ?? 'end')],
          stop_sequence: stopSequence,
        },
        usage: u,
      })}${sse('message_stop', { type: 'message_stop' })}`;
    },
  };
}
