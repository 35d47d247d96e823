// OpenAI Responses requests ↔ IR. https://platform.openai.com/docs/api-reference/responses/create
import {
  arr,
  effortFor,
  emptyRequest,
  type IrImage,
  type IrRequest,
  type IrText,
  type IrTool,
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
  TranslationError,
  textOf,
  unknownKeys,
} from '../ir';
import { functionFields, jsonSchemaFields } from '../openai-fields';
import { webSearchCallHistory } from './web-search';

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
  // Carried to formats that have them (prompt caching); else no effect on a translated answer.
  'prompt_cache_key',
  'prompt_cache_retention',
  // No effect on a translated answer: storage, extra output.
  'store',
  'include',
  'metadata',
  'safety_identifier',
  'service_tier',
  'truncation',
  'stream_options',
]);

/** Fields that depend on state kept by OpenAI: dropping them would corrupt the conversation. */
const STATEFUL = ['previous_response_id', 'conversation', 'prompt', 'background'];

/** Message content (input or output items alike) as IR parts; what has no IR form is dropped. */
export function contentParts(content: unknown, dropped: string[]): (IrText | IrImage)[] {
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
    } else if (type === 'web_search_call') {
      const text = webSearchCallHistory(item);
      if (text) pushPart(ir.messages, 'assistant', text);
      else dropped.push('input[web_search_call]');
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
  if (isEffort(effort)) ir.reasoning = { effort, budgetTokens: null };
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
  ir.cacheKey = str(body.prompt_cache_key);
  ir.cacheRetention = str(body.prompt_cache_retention);
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
  if (ir.cacheKey !== null) out.prompt_cache_key = ir.cacheKey;
  if (ir.cacheRetention !== null) out.prompt_cache_retention = ir.cacheRetention;
  if (ir.stream) out.stream = true;
  out.store = false;
  return { value: out, dropped };
}
