// Translation between the four wire formats, as the proxy pipeline uses it. Each format's
// adapter converts to and from the internal representation (ir.ts); this module picks adapters.
import type { ClientFormat, ProviderFormat } from '../../../shared/contract';
import * as anthropic from './anthropic';
import { addBreakpoints, ttlFor } from './cache-breakpoints';
import * as chat from './chat';
import * as gemini from './gemini';
import {
  type IrError,
  type IrRequest,
  type IrResponse,
  type IrUsage,
  type Json,
  obj,
  type Parsed,
  type StreamParser,
  type StreamWriter,
  TranslationError,
  type WireFormat,
} from './ir';
import * as responses from './responses';
import { responseEvents, StreamTranslator } from './stream';

export { type GeminiCall, geminiPath } from './gemini';
export { type IrUsage, StreamTranslator, TranslationError, type WireFormat };

/**
 * The API a provider is called in for a client of `client`'s format, or null when the client's
 * bytes can go through untouched. `openai` providers serve Chat and Responses; `openai-chat`
 * providers serve Chat only; `anthropic` providers serve Messages; `gemini` providers the Gemini
 * API, and Gemini clients go to OpenAI providers in Chat.
 */
export function upstreamFormatFor(
  client: ClientFormat,
  provider: ProviderFormat,
): WireFormat | null {
  if (provider === 'gemini') return client === 'gemini' ? null : 'gemini';
  if (provider === 'anthropic') return client === 'anthropic' ? null : 'anthropic';
  if (client === 'openai-chat') return null;
  if (client === 'openai-responses' && provider === 'openai') return null;
  return 'openai-chat';
}

/** `call` gives a Gemini request its model and streaming, which its URL carries. */
export function parseRequest(
  format: WireFormat,
  body: Json,
  call: gemini.GeminiCall = { model: '', stream: false },
): Parsed<IrRequest> {
  if (format === 'gemini') return gemini.parseRequest(body, call);
  if (format === 'anthropic') return anthropic.parseRequest(body);
  if (format === 'openai-chat') return chat.parseRequest(body);
  return responses.parseRequest(body);
}

/** What a translation does for prompt caching beyond carrying the client's own fields. */
export interface CacheEmitOptions {
  /** Anthropic targets: place cache breakpoints (cache-breakpoints.ts). */
  breakpoints: boolean;
}

const NO_CACHE_HELP: CacheEmitOptions = Object.freeze({ breakpoints: false });

export function emitRequest(
  format: WireFormat,
  ir: IrRequest,
  provider: ProviderFormat = 'openai',
  cache: CacheEmitOptions = NO_CACHE_HELP,
): Parsed<Json> {
  if (format === 'anthropic' || format === 'gemini') {
    const emitted = format === 'anthropic' ? anthropic.emitRequest(ir) : gemini.emitRequest(ir);
    // Neither API has a cache key; Anthropic's breakpoints carry the retention as their TTL.
    if (ir.cacheKey !== null) emitted.dropped.push('prompt_cache_key');
    if (format === 'anthropic' && cache.breakpoints) {
      addBreakpoints(emitted.value, ttlFor(ir.cacheRetention));
    } else if (ir.cacheRetention !== null) emitted.dropped.push('prompt_cache_retention');
    return emitted;
  }
  if (format === 'openai-chat') {
    return chat.emitRequest(ir, {
      maxTokensField: provider === 'openai' ? 'max_completion_tokens' : 'max_tokens',
    });
  }
  return responses.emitRequest(ir);
}

const HEADER_LIMIT = 1024;

/**
 * Distinct, in first-seen order: the value of `X-Breakwater-Dropped`. Names can come from the
 * client's JSON keys, so anything a header cannot carry is replaced and the list is capped.
 */
export function droppedHeader(dropped: readonly string[]): string {
  const value = [...new Set(dropped)].join(', ').replace(/[^\x20-\x7e]/g, '?');
  return value.length > HEADER_LIMIT ? `${value.slice(0, HEADER_LIMIT - 1)}~` : value;
}

export function parseResponse(format: WireFormat, body: Json): IrResponse {
  if (format === 'anthropic') return anthropic.parseResponse(body);
  if (format === 'gemini') return gemini.parseResponse(body);
  if (format === 'openai-chat') return chat.parseResponse(body);
  return responses.parseResponse(body);
}

/** What a translated answer needs of its request, beyond the answer itself. */
export interface ResponseOptions {
  /** When the answer began: the creation time fields the client format requires. */
  nowMs: number;
  /** The clock that stamps the completion time (Responses `completed_at`); `nowMs` if absent. */
  now?: () => number;
  /** The request's freeform tools (Responses clients get `custom_tool_call` items). */
  customTools?: ReadonlySet<string>;
  /** The request's fields a Responses answer repeats (`requestEcho`). */
  echo?: Json;
}

export function emitResponse(format: WireFormat, ir: IrResponse, opts: ResponseOptions): Json {
  const created = Math.floor(opts.nowMs / 1000);
  if (format === 'anthropic') return anthropic.emitResponse(ir);
  if (format === 'gemini') return gemini.emitResponse(ir);
  if (format === 'openai-chat') return chat.emitResponse(ir, created);
  return responses.emitResponse(ir, {
    createdAt: created,
    completedAt: Math.floor((opts.now?.() ?? opts.nowMs) / 1000),
    ...(opts.customTools ? { custom: opts.customTools } : {}),
    ...(opts.echo ? { echo: opts.echo } : {}),
  });
}

/**
 * The fields of a client's (already parsed) request its answer repeats: only Responses answers
 * do, so other formats get undefined and pay nothing.
 */
export function requestEcho(client: WireFormat, body: Json): Json | undefined {
  return client === 'openai-responses' ? responses.responseEcho(body) : undefined;
}

/** Names of the request's freeform tools (see `IrTool.custom`). */
export function customToolsOf(ir: IrRequest): ReadonlySet<string> {
  return new Set(ir.tools.filter((t) => t.custom).map((t) => t.name));
}

export function createStreamParser(format: WireFormat): StreamParser {
  if (format === 'anthropic') return new anthropic.AnthropicStreamParser();
  if (format === 'gemini') return new gemini.GeminiStreamParser();
  if (format === 'openai-chat') return new chat.ChatStreamParser();
  return new responses.ResponsesStreamParser();
}

export interface WriterOptions extends ResponseOptions {
  /** Chat clients get a usage chunk only when they asked (`stream_options.include_usage`). */
  includeUsage: boolean;
}

export function createStreamWriter(format: WireFormat, opts: WriterOptions): StreamWriter {
  const created = Math.floor(opts.nowMs / 1000);
  if (format === 'anthropic') return new anthropic.AnthropicStreamWriter();
  if (format === 'gemini') return new gemini.GeminiStreamWriter();
  if (format === 'openai-chat') {
    return new chat.ChatStreamWriter({ created, includeUsage: opts.includeUsage });
  }
  const { nowMs } = opts;
  return new responses.ResponsesStreamWriter({
    createdAt: created,
    now: opts.now ?? (() => nowMs),
    ...(opts.customTools ? { custom: opts.customTools } : {}),
    ...(opts.echo ? { echo: opts.echo } : {}),
  });
}

export function createStreamTranslator(
  upstream: WireFormat,
  client: WireFormat,
  opts: WriterOptions,
): StreamTranslator {
  return new StreamTranslator(createStreamParser(upstream), createStreamWriter(client, opts));
}

/** A whole (non-streamed) upstream answer as a client stream. */
export function responseAsStream(
  upstream: WireFormat,
  client: WireFormat,
  body: Json,
  opts: WriterOptions,
): { text: string; usage: IrUsage } {
  const t = new StreamTranslator(createStreamParser(upstream), createStreamWriter(client, opts));
  const text = t.apply(responseEvents(parseResponse(upstream, body)));
  // No SSE went through the parser, so only the writer has closing events to add.
  return { text: text + t.close(), usage: t.usage };
}

/** An upstream error body (any format) as an IR error, or null when it is not one. */
export function parseError(upstream: WireFormat, status: number, body: unknown): IrError | null {
  if (upstream === 'anthropic') return anthropic.parseError(status, body);
  if (upstream === 'gemini') return gemini.parseError(status, body);
  if (upstream === 'openai-chat') return chat.parseError(status, body);
  return responses.parseError(status, body);
}

/**
 * A rough input-token count (about four characters per token, images a flat 1,600) for
 * `count_tokens` on providers that have no such endpoint. Labelled an estimate wherever shown.
 */
export function estimateInputTokens(ir: IrRequest): number {
  let chars = 0;
  let images = 0;
  for (const s of ir.system) chars += s.length;
  for (const m of ir.messages) {
    chars += 8;
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'reasoning') chars += p.text.length;
      else if (p.type === 'image') images++;
      else if (p.type === 'tool_call') chars += p.name.length + p.arguments.length;
      else {
        for (const c of p.content) {
          if (c.type === 'text') chars += c.text.length;
          else images++;
        }
      }
    }
  }
  for (const t of ir.tools) {
    chars += t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.parameters).length;
  }
  return Math.ceil(chars / 4) + images * 1600;
}

export const isJsonObject = (v: unknown): v is Json => obj(v) !== null;
