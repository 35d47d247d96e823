// The internal representation every format adapter converts to and from. Nothing here knows a
// wire format: the adapters (anthropic/, chat/, responses/, gemini/) are the only code that does.

/** A wire format: the four client formats double as the four upstream APIs. */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

export type Json = Record<string, unknown>;

export interface IrText {
  type: 'text';
  text: string;
  /**
   * A prompt-cache breakpoint the client put on this text (Chat clients of Anthropic models
   * may, as `cache_control` on a content part): Anthropic gets it where the client placed it.
   */
  cache?: IrCacheTtl;
}

/** A prompt-cache breakpoint's TTL, as Anthropic spells it. */
export type IrCacheTtl = '5m' | '1h';

/** An image by URL (http(s) or data URL) or as base64 bytes with a media type. */
export interface IrImage {
  type: 'image';
  url: string | null;
  mediaType: string | null;
  data: string | null;
}

export interface IrToolCall {
  type: 'tool_call';
  id: string;
  name: string;
  /** The arguments as a JSON text, exactly as the model produced them. */
  arguments: string;
}

export interface IrToolResult {
  type: 'tool_result';
  callId: string;
  content: (IrText | IrImage)[];
  isError: boolean;
}

/** Reasoning / thinking content. `signature` is the provider's opaque proof, when it gave one. */
export interface IrReasoning {
  type: 'reasoning';
  text: string;
  signature: string | null;
}

export type IrPart = IrText | IrImage | IrToolCall | IrToolResult | IrReasoning;

export interface IrMessage {
  role: 'user' | 'assistant';
  parts: IrPart[];
}

export interface IrTool {
  name: string;
  description: string | null;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Json;
  /**
   * A Responses freeform (`custom`) tool: its input is plain text, carried to other formats as
   * a function with one string argument, `input` (see `customInput`).
   */
  custom?: boolean;
}

export type IrToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type Effort = 'minimal' | 'low' | 'medium' | 'high';

export interface IrReasoningConfig {
  effort: Effort | null;
  budgetTokens: number | null;
}

export type IrResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Json; strict: boolean | null };

export interface IrRequest {
  model: string;
  /** System / developer instructions, in order. */
  system: string[];
  messages: IrMessage[];
  tools: IrTool[];
  toolChoice: IrToolChoice | null;
  parallelToolCalls: boolean | null;
  maxTokens: number | null;
  temperature: number | null;
  topP: number | null;
  stop: string[];
  stream: boolean;
  reasoning: IrReasoningConfig | null;
  responseFormat: IrResponseFormat | null;
  user: string | null;
  /** OpenAI's `prompt_cache_key`: which cache the provider should route the prompt to. */
  cacheKey: string | null;
  /** OpenAI's `prompt_cache_retention` (`in_memory`, `24h`): how long a cached prefix lives. */
  cacheRetention: string | null;
  /** The client put a breakpoint at the end of the system prompt (see `IrText.cache`). */
  systemCache?: IrCacheTtl;
}

export type IrStop =
  | 'end'
  | 'max_tokens'
  | 'tool_use'
  | 'stop_sequence'
  | 'content_filter'
  | 'refusal'
  | 'pause';

/** Token counts. `input` includes cached tokens (OpenAI's convention). */
export interface IrUsage {
  input: number | null;
  output: number | null;
  cached: number | null;
  cacheCreation: number | null;
  reasoning: number | null;
  /** The service tier the provider says it served the answer on, when it says (its own name). */
  serviceTier?: string;
  /** Web searches the gateway ran for the answer (websearch/): Anthropic's `server_tool_use`. */
  webSearchRequests?: number;
}

/** One result of a web search the gateway ran (websearch/), already bounded and cleaned. */
export interface IrSearchResult {
  url: string;
  title: string;
  snippet: string;
  /** How old the page is, as the backend put it ("2 days ago", a date), when it said. */
  pageAge: string | null;
}

/**
 * A web search the gateway ran on the model's behalf, shown to the client the way its API shows
 * a server-side search (Anthropic `server_tool_use` + `web_search_tool_result`, a Responses
 * `web_search_call`). `error` is set instead of results when it could not run.
 */
export interface IrWebSearch {
  id: string;
  query: string;
  results: IrSearchResult[];
  error: {
    code: 'unavailable' | 'max_uses_exceeded' | 'invalid_tool_input';
    message: string;
  } | null;
}

export interface IrResponse {
  id: string;
  model: string;
  parts: (IrText | IrReasoning | IrToolCall)[];
  stop: IrStop;
  stopSequence: string | null;
  usage: IrUsage;
}

/** An error in any format, reduced to what every client format can express. */
export interface IrError {
  status: number;
  /** One of client-errors' ErrorKind values. */
  kind: string;
  code: string;
  message: string;
}

/**
 * One step of a streamed answer. Parsers emit `start` first and exactly once; `tool_start` and
 * `tool_args` carry an index that is unique per tool call within one answer.
 */
export type IrEvent =
  | { type: 'start'; id: string; model: string; usage: IrUsage | null }
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'reasoning_signature'; signature: string }
  | { type: 'tool_start'; index: number; id: string; name: string }
  | { type: 'tool_args'; index: number; delta: string }
  | { type: 'usage'; usage: IrUsage }
  | { type: 'stop'; stop: IrStop; stopSequence: string | null }
  | { type: 'web_search'; search: IrWebSearch }
  | { type: 'error'; error: IrError };

/** A parsed request plus what the parser could not carry over. */
export interface Parsed<T> {
  value: T;
  dropped: string[];
}

/** A request the target format cannot express without corrupting the conversation. */
export class TranslationError extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

// --- helpers shared by the adapters -----------------------------------------------------------

export function emptyUsage(): IrUsage {
  return { input: null, output: null, cached: null, cacheCreation: null, reasoning: null };
}

export function mergeIrUsage(into: IrUsage, from: IrUsage): void {
  if (from.input !== null) into.input = from.input;
  if (from.output !== null) into.output = from.output;
  if (from.cached !== null) into.cached = from.cached;
  if (from.cacheCreation !== null) into.cacheCreation = from.cacheCreation;
  if (from.reasoning !== null) into.reasoning = from.reasoning;
  if (from.serviceTier !== undefined) into.serviceTier = from.serviceTier;
  if (from.webSearchRequests !== undefined) into.webSearchRequests = from.webSearchRequests;
}

export function emptyRequest(model: string): IrRequest {
  return {
    model,
    system: [],
    messages: [],
    tools: [],
    toolChoice: null,
    parallelToolCalls: null,
    maxTokens: null,
    temperature: null,
    topP: null,
    stop: [],
    stream: false,
    reasoning: null,
    responseFormat: null,
    user: null,
    cacheKey: null,
    cacheRetention: null,
  };
}

export const obj = (v: unknown): Json | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

/** Thinking budget ↔ effort, for formats that have only one of the two. */
export function effortFor(r: IrReasoningConfig): Effort {
  if (r.effort) return r.effort;
  const b = r.budgetTokens ?? 0;
  if (b < 4096) return 'low';
  if (b < 16384) return 'medium';
  return 'high';
}

const BUDGETS: Record<Effort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 24576 };

export function budgetFor(r: IrReasoningConfig): number {
  return r.budgetTokens ?? BUDGETS[r.effort ?? 'medium'];
}

/** An effort level the IR carries (every level has a budget above). */
export function isEffort(v: string | null): v is Effort {
  return v !== null && Object.hasOwn(BUDGETS, v);
}

/** A client's `cache_control` as a breakpoint TTL; undefined when it is not one. */
export function cacheMarkOf(v: unknown): IrCacheTtl | undefined {
  const mark = obj(v);
  if (!mark) return undefined;
  return mark.ttl === '1h' ? '1h' : '5m';
}

/** Appends a part to the conversation, starting a new message when the role changes. */
export function pushPart(messages: IrMessage[], role: IrMessage['role'], part: IrPart): void {
  const last = messages.at(-1);
  if (last && last.role === role) last.parts.push(part);
  else messages.push({ role, parts: [part] });
}

/** Splits a data URL into media type and base64 data; null for any other URL. */
export function splitDataUrl(url: string): { mediaType: string; data: string } | null {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : null;
}

export function imageUrlOf(img: IrImage): string {
  return img.url ?? `data:${img.mediaType ?? 'image/png'};base64,${img.data ?? ''}`;
}

export function imageFromUrl(url: string): IrImage {
  const d = splitDataUrl(url);
  return d
    ? { type: 'image', url: null, mediaType: d.mediaType, data: d.data }
    : { type: 'image', url, mediaType: null, data: null };
}

/** The text input of a freeform tool's call from its `{"input": …}` arguments. */
export function customInput(args: string): string {
  try {
    const v = JSON.parse(args) as unknown;
    const input = obj(v)?.input;
    return typeof input === 'string' ? input : args;
  } catch {
    return args;
  }
}

/** Parses tool arguments for formats that carry them as objects; bad JSON is kept as text. */
export function argumentsObject(args: string): Json {
  if (args.trim() === '') return {};
  try {
    const v = JSON.parse(args) as unknown;
    return obj(v) ?? { value: v };
  } catch {
    return { _raw_arguments: args };
  }
}

/** A tool result as text, marked as an error for formats that have no error flag. */
export function resultText(r: IrToolResult): string {
  const text = textOf(r.content);
  return r.isError && !/^error/i.test(text) ? `Error: ${text}` : text;
}

export function textOf(parts: readonly IrPart[]): string {
  let s = '';
  for (const p of parts) if (p.type === 'text') s += p.text;
  return s;
}

/** Records keys of `body` no adapter rule consumed, as `prefix.key`. */
export function unknownKeys(body: Json, known: ReadonlySet<string>, dropped: string[]): void {
  for (const k of Object.keys(body)) {
    if (!known.has(k) && body[k] !== undefined && body[k] !== null) dropped.push(k);
  }
}

/** Turns one upstream format's SSE events into IR events (stateful, one per answer). */
export interface StreamParser {
  /** One SSE event: its `event:` name (or null) and its joined `data:` text. */
  push(event: string | null, data: string): IrEvent[];
  /** The upstream body ended; an error event when it ended before its terminator. */
  end(): IrEvent[];
}

/** Turns IR events into one client format's SSE text (stateful, one per answer). */
export interface StreamWriter {
  write(ev: IrEvent): string;
  /** Closing events after the upstream answer ended cleanly. */
  finish(): string;
  /** Formats that number their events go on from this number (a continued stream). */
  resumeSequence?(next: number): void;
}

export function incompleteError(): IrEvent {
  return {
    type: 'error',
    error: {
      status: 502,
      kind: 'upstream',
      code: 'upstream_stream_incomplete',
      message: 'the upstream stream ended before its final event',
    },
  };
}
