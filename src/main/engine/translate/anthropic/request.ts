// Anthropic Messages requests ↔ IR. https://docs.anthropic.com/en/api/messages
import {
  argumentsObject,
  arr,
  budgetFor,
  emptyRequest,
  type IrCacheTtl,
  type IrImage,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrText,
  type IrToolChoice,
  type Json,
  num,
  obj,
  type Parsed,
  pushPart,
  str,
  unknownKeys,
} from '../ir';
import { webSearchHistory } from './web-search';

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
const DEFAULT_MAX_TOKENS = 8192;

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

/** A content block as an IR part (answers' blocks too); null for what IR cannot carry. */
export function partOf(b: Json, dropped: string[]): IrPart | null {
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
    case 'server_tool_use':
    case 'web_search_tool_result': {
      const text = webSearchHistory(b);
      if (!text) dropped.push(String(b.type));
      return text;
    }
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

function cacheControl(ttl: IrCacheTtl): Json {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

export function emitRequest(ir: IrRequest): Parsed<Json> {
  const dropped: string[] = [];
  const out: Json = { model: ir.model };
  if (ir.systemCache && ir.system.length > 0) {
    const blocks: Json[] = ir.system.map((text) => ({ type: 'text', text }));
    blocks.at(-1)!.cache_control = cacheControl(ir.systemCache);
    out.system = blocks;
  } else if (ir.system.length === 1) out.system = ir.system[0];
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
        if (p.text !== '') {
          content.push(
            p.cache
              ? { type: 'text', text: p.text, cache_control: cacheControl(p.cache) }
              : { type: 'text', text: p.text },
          );
        }
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
