// Gemini API `generateContent` requests ↔ IR, and the content parts answers share.
// https://ai.google.dev/api/generate-content. The model and whether to stream are in the URL
// (`/v1beta/models/{model}:streamGenerateContent`), so they come in beside the body.
import {
  argumentsObject,
  arr,
  budgetFor,
  type Effort,
  emptyRequest,
  type IrImage,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrToolChoice,
  type IrToolResult,
  type Json,
  num,
  obj,
  type Parsed,
  pushPart,
  splitDataUrl,
  str,
  textOf,
  unknownKeys,
} from '../ir';

/** What the URL says about a request: the body carries neither. */
export interface GeminiCall {
  model: string;
  stream: boolean;
}

const KNOWN_REQUEST_KEYS = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'toolConfig',
  'tool_config',
  'generationConfig',
  'generation_config',
  'model',
]);

const KNOWN_GENERATION_KEYS = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
  'candidateCount',
]);

/** The REST API takes both spellings of a field (`inlineData`, `inline_data`). */
function field(o: Json, camel: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

/** Gemini's OpenAPI-style schemas spell types in capitals (`OBJECT`); JSON Schema does not. */
function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  const o = obj(schema);
  if (!o) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    out[k] = k === 'type' && typeof v === 'string' ? v.toLowerCase() : jsonSchemaOf(v);
  }
  return out;
}

/**
 * Gemini's API need not give calls ids (Gemini CLI makes its own); the other formats do. A call
 * without one gets `call_<prefix>_<n>`, and a response without one answers the oldest open call
 * of its function's name.
 */
export class CallIds {
  private n = 0;
  private readonly open = new Map<string, string[]>();
  private readonly names = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  call(id: string | null, name: string): string {
    const callId = id || `call_${this.prefix}_${this.n++}`;
    const queue = this.open.get(name) ?? [];
    queue.push(callId);
    this.open.set(name, queue);
    this.names.set(callId, name);
    return callId;
  }

  response(id: string | null, name: string): string {
    const queue = this.open.get(name) ?? [];
    const callId = id || queue[0] || `call_${this.prefix}_${this.n++}`;
    const at = queue.indexOf(callId);
    if (at >= 0) queue.splice(at, 1);
    return callId;
  }

  /** The function name a call id was given to (a functionResponse must name it). */
  nameOf(id: string): string {
    return this.names.get(id) ?? '';
  }
}

function toolResultOf(fr: Json, ids: CallIds): IrToolResult {
  const name = str(fr.name) ?? '';
  const response = obj(fr.response) ?? {};
  const keys = Object.keys(response);
  const isError = response.error !== undefined;
  const only = keys.length === 1 ? response[keys[0]!] : undefined;
  const text =
    typeof only === 'string' && (keys[0] === 'output' || keys[0] === 'error')
      ? only
      : JSON.stringify(response);
  return {
    type: 'tool_result',
    callId: ids.response(str(fr.id), name),
    content: [{ type: 'text', text }],
    isError,
  };
}

/**
 * One Gemini part as IR parts. A `thoughtSignature` on a part that is not a thought (Gemini puts
 * them on function calls) becomes an empty signed reasoning part before it, which `partsOut`
 * folds back onto the part that follows.
 */
export function partsIn(p: Json, ids: CallIds, dropped: string[]): IrPart[] {
  const signature = str(field(p, 'thoughtSignature'));
  if (p.thought === true) {
    return [{ type: 'reasoning', text: str(p.text) ?? '', signature }];
  }
  const out: IrPart[] = signature ? [{ type: 'reasoning', text: '', signature }] : [];
  const inline = obj(field(p, 'inlineData'));
  const file = obj(field(p, 'fileData'));
  const call = obj(field(p, 'functionCall'));
  const response = obj(field(p, 'functionResponse'));
  if (typeof p.text === 'string') out.push({ type: 'text', text: p.text });
  else if (inline) {
    out.push({
      type: 'image',
      url: null,
      mediaType: str(field(inline, 'mimeType')),
      data: str(inline.data) ?? '',
    });
  } else if (file) {
    out.push({
      type: 'image',
      url: str(field(file, 'fileUri')) ?? '',
      mediaType: null,
      data: null,
    });
  } else if (call) {
    const name = str(call.name) ?? '';
    out.push({
      type: 'tool_call',
      id: ids.call(str(call.id), name),
      name,
      arguments: JSON.stringify(obj(call.args) ?? {}),
    });
  } else if (response) out.push(toolResultOf(response, ids));
  else dropped.push(`${Object.keys(p)[0] ?? 'empty'} part`);
  return out;
}

function imageOut(img: IrImage): Json {
  const d = img.url ? splitDataUrl(img.url) : null;
  if (img.url && !d) return { fileData: { fileUri: img.url } };
  return {
    inlineData: {
      mimeType: d?.mediaType ?? img.mediaType ?? 'image/png',
      data: d?.data ?? img.data ?? '',
    },
  };
}

/** IR parts as Gemini parts; `nameOf` names the function a tool result answers. */
export function partsOut(parts: readonly IrPart[], nameOf: (callId: string) => string): Json[] {
  const out: Json[] = [];
  let signature: string | null = null;
  const push = (part: Json) => {
    out.push(signature ? { ...part, thoughtSignature: signature } : part);
    signature = null;
  };
  for (const p of parts) {
    if (p.type === 'reasoning') {
      if (p.text === '' && p.signature) signature = p.signature;
      else
        push({
          text: p.text,
          thought: true,
          ...(p.signature ? { thoughtSignature: p.signature } : {}),
        });
    } else if (p.type === 'text') push({ text: p.text });
    else if (p.type === 'image') push(imageOut(p));
    else if (p.type === 'tool_call') {
      push({ functionCall: { id: p.id, name: p.name, args: argumentsObject(p.arguments) } });
    } else {
      const text = textOf(p.content);
      push({
        functionResponse: {
          id: p.callId,
          name: nameOf(p.callId),
          response: p.isError ? { error: text } : { output: text },
        },
      });
      for (const c of p.content) if (c.type === 'image') push(imageOut(c));
    }
  }
  if (signature) out.push({ text: '', thoughtSignature: signature });
  return out;
}

/**
 * Thought parts streamed one after another arrive as one thought, signed by the last (a client
 * keeps what it was streamed); a signature on any other part stays its own.
 */
function pushThought(parts: IrPart[], thought: IrPart): void {
  const last = parts.at(-1);
  if (thought.type === 'reasoning' && last?.type === 'reasoning' && last.signature === null) {
    parts[parts.length - 1] = {
      ...last,
      text: last.text + thought.text,
      signature: thought.signature,
    };
  } else parts.push(thought);
}

function systemOf(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  const parts = arr(obj(v)?.parts);
  return parts.map((p) => str(obj(p)?.text)).filter((t): t is string => t !== null);
}

function toolChoiceOf(config: Json | null): IrToolChoice | null {
  const fc = obj(field(config ?? {}, 'functionCallingConfig'));
  if (!fc) return null;
  const mode = str(fc.mode);
  const allowed = arr(field(fc, 'allowedFunctionNames'));
  if (mode === 'NONE') return { type: 'none' };
  if (mode === 'ANY' && allowed.length === 1 && typeof allowed[0] === 'string') {
    return { type: 'tool', name: allowed[0] };
  }
  if (mode === 'ANY') return { type: 'required' };
  return mode === 'AUTO' || mode === 'VALIDATED' ? { type: 'auto' } : null;
}

const LEVELS: Record<string, Effort> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

function generationInto(ir: IrRequest, g: Json, dropped: string[]): void {
  for (const k of Object.keys(g)) {
    const camel = k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (!KNOWN_GENERATION_KEYS.has(camel) && g[k] !== null)
      dropped.push(`generationConfig.${camel}`);
  }
  ir.maxTokens = num(field(g, 'maxOutputTokens'));
  ir.temperature = num(g.temperature);
  ir.topP = num(field(g, 'topP'));
  ir.stop = arr(field(g, 'stopSequences')).filter((s): s is string => typeof s === 'string');
  const count = num(field(g, 'candidateCount'));
  if (count !== null && count !== 1) dropped.push('generationConfig.candidateCount');
  const schema = field(g, 'responseJsonSchema') ?? field(g, 'responseSchema');
  if (obj(schema)) {
    ir.responseFormat = {
      type: 'json_schema',
      name: 'response',
      schema: jsonSchemaOf(schema) as Json,
      strict: null,
    };
  } else if (field(g, 'responseMimeType') === 'application/json') {
    ir.responseFormat = { type: 'json_object' };
  }
  const thinking = obj(field(g, 'thinkingConfig'));
  if (!thinking) return;
  const budget = num(field(thinking, 'thinkingBudget'));
  const level = LEVELS[String(field(thinking, 'thinkingLevel')).toLowerCase()];
  // A budget of 0 turns thinking off; -1 lets the model decide (a medium effort elsewhere).
  if (level) ir.reasoning = { effort: level, budgetTokens: null };
  else if (budget === -1) ir.reasoning = { effort: 'medium', budgetTokens: null };
  else if (budget !== null && budget > 0) ir.reasoning = { effort: null, budgetTokens: budget };
}

export function parseRequest(body: Json, call: GeminiCall): Parsed<IrRequest> {
  const dropped: string[] = [];
  const ir = emptyRequest(call.model);
  ir.stream = call.stream;
  unknownKeys(body, KNOWN_REQUEST_KEYS, dropped);
  ir.system = systemOf(field(body, 'systemInstruction'));
  const ids = new CallIds('gemini');
  for (const c of arr(body.contents)) {
    const content = obj(c);
    if (!content) continue;
    const role: IrMessage['role'] = content.role === 'model' ? 'assistant' : 'user';
    const parts: IrPart[] = [];
    for (const p of arr(content.parts)) {
      const part = obj(p);
      if (!part) continue;
      if (part.thought === true) pushThought(parts, partsIn(part, ids, dropped)[0]!);
      else parts.push(...partsIn(part, ids, dropped));
    }
    for (const p of parts) pushPart(ir.messages, role, p);
  }
  for (const t of arr(body.tools)) {
    const tool = obj(t) ?? {};
    for (const [k, v] of Object.entries(tool)) {
      if (k !== 'functionDeclarations' && k !== 'function_declarations') {
        dropped.push(`tools[${k}]`);
        continue;
      }
      for (const d of arr(v)) {
        const fn = obj(d) ?? {};
        const params = field(fn, 'parametersJsonSchema') ?? jsonSchemaOf(fn.parameters);
        ir.tools.push({
          name: str(fn.name) ?? '',
          description: str(fn.description),
          parameters: obj(params) ?? { type: 'object', properties: {} },
        });
      }
    }
  }
  ir.toolChoice = toolChoiceOf(obj(field(body, 'toolConfig')));
  const g = obj(field(body, 'generationConfig'));
  if (g) generationInto(ir, g, dropped);
  return { value: ir, dropped };
}

/** The request body (model and stream go in the URL, see `geminiPath`). */
export function emitRequest(ir: IrRequest): Parsed<Json> {
  const dropped: string[] = [];
  const ids = new CallIds('ir');
  for (const m of ir.messages) {
    for (const p of m.parts) if (p.type === 'tool_call') ids.call(p.id, p.name);
  }
  const out: Json = {
    contents: ir.messages.map((m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: partsOut(m.parts, (id) => ids.nameOf(id)),
    })),
  };
  if (ir.system.length > 0) out.systemInstruction = { parts: ir.system.map((text) => ({ text })) };
  if (ir.tools.length > 0) {
    out.tools = [
      {
        functionDeclarations: ir.tools.map((t) => ({
          name: t.name,
          ...(t.description !== null ? { description: t.description } : {}),
          parametersJsonSchema: t.parameters,
        })),
      },
    ];
  }
  const c = ir.toolChoice;
  if (c) {
    const mode = { auto: 'AUTO', none: 'NONE', required: 'ANY', tool: 'ANY' }[c.type];
    out.toolConfig = {
      functionCallingConfig: {
        mode,
        ...(c.type === 'tool' ? { allowedFunctionNames: [c.name] } : {}),
      },
    };
  }
  if (ir.parallelToolCalls === false) dropped.push('parallel_tool_calls');
  if (ir.user) dropped.push('user');
  const g: Json = {};
  if (ir.maxTokens !== null) g.maxOutputTokens = ir.maxTokens;
  if (ir.temperature !== null) g.temperature = ir.temperature;
  if (ir.topP !== null) g.topP = ir.topP;
  if (ir.stop.length > 0) g.stopSequences = ir.stop;
  const rf = ir.responseFormat;
  if (rf) {
    g.responseMimeType = 'application/json';
    if (rf.type === 'json_schema') g.responseJsonSchema = rf.schema;
  }
  if (ir.reasoning) {
    g.thinkingConfig = { thinkingBudget: budgetFor(ir.reasoning), includeThoughts: true };
  }
  if (Object.keys(g).length > 0) out.generationConfig = g;
  return { value: out, dropped };
}

/** The upstream path of a Gemini call for `model`. */
export function geminiPath(model: string, stream: boolean, countTokens = false): string {
  const method = countTokens
    ? 'countTokens'
    : stream
      ? 'streamGenerateContent?alt=sse'
      : 'generateContent';
  return `/models/${encodeURIComponent(model)}:${method}`;
}
