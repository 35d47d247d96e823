// OpenAI Chat Completions requests ↔ IR. https://platform.openai.com/docs/api-reference/chat/create
import {
  arr,
  cacheMarkOf,
  effortFor,
  emptyRequest,
  type IrImage,
  type IrPart,
  type IrRequest,
  type IrText,
  type IrToolCall,
  imageFromUrl,
  imageUrlOf,
  isEffort,
  type Json,
  num,
  obj,
  type Parsed,
  pushPart,
  resultText,
  str,
  textOf,
  unknownKeys,
} from '../ir';
import { functionFields, jsonSchemaFields } from '../openai-fields';

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
  'prompt_cache_key',
  'prompt_cache_retention',
]);

/** A message's text (an answer's too); parts other than text and refusals are dropped. */
export function textParts(content: unknown, dropped: string[]): string {
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
    if (part.type === 'text') {
      const cache = cacheMarkOf(part.cache_control);
      out.push({ type: 'text', text: str(part.text) ?? '', ...(cache ? { cache } : {}) });
    } else if (part.type === 'image_url') {
      out.push(imageFromUrl(str(obj(part.image_url)?.url) ?? str(part.image_url) ?? ''));
    } else dropped.push(`${String(part.type)} content`);
  }
  return out;
}

/** An assistant message's `tool_calls` as IR tool calls; malformed entries are skipped. */
export function toolCallsIn(calls: unknown): IrToolCall[] {
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

/** IR tool calls as a message's `tool_calls`. */
export function toolCallsOut(calls: readonly IrToolCall[]): Json[] {
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
        // A breakpoint in the system prompt marks its end: the system is one text in the IR.
        for (const p of arr(msg.content)) {
          const cache = cacheMarkOf(obj(p)?.cache_control);
          if (cache) ir.systemCache = cache;
        }
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
  if (isEffort(effort)) ir.reasoning = { effort, budgetTokens: null };
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
  ir.cacheKey = str(body.prompt_cache_key);
  ir.cacheRetention = str(body.prompt_cache_retention);
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
  if (ir.cacheKey !== null) out.prompt_cache_key = ir.cacheKey;
  if (ir.cacheRetention !== null) out.prompt_cache_retention = ir.cacheRetention;
  if (ir.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return { value: out, dropped };
}
