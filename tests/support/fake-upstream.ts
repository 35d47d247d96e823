// In-repo fake LLM upstream: one loopback HTTP server that speaks OpenAI Chat Completions,
// OpenAI Responses, Anthropic Messages and the Gemini API (streaming and not), with per-request
// scripted behaviour (errors, delays, stalls, resets) so gateway tests never need the network.
//
// Routes answer with and without the `/v1` prefix: OpenAI-format providers are configured with
// a baseUrl ending in `/v1`, Anthropic-format ones append `/v1/messages` to a bare host, and
// Gemini-format ones (base URL `…/v1beta`) call `/v1beta/models/{model}:{method}`.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FakePromptCache } from './fake-cache';
import { type FakeFinish, finishText, wordsOf } from './fake-continuation';
import {
  type GeminiCall,
  geminiBody,
  geminiCall,
  geminiError,
  geminiModels,
  geminiStream,
  geminiStreamError,
} from './fake-gemini';
import { type FakeToolCall, type ToolReply, toolReplyBody, toolReplyStream } from './fake-tools';

export type { FakeToolCall } from './fake-tools';

/** What one generation request gets. Every field is optional; `{}` is a plain success. */
export interface FakeStep {
  /** Default 200. Without `body`, any status >= 300 gets a generated error body in the route's format. */
  status?: number;
  /** Extra response headers (e.g. `'retry-after': '7'`); they override the generated ones. */
  headers?: Record<string, string>;
  /**
   * Sent instead of the generated body, whatever `stream` asked for. Objects are JSON; strings go
   * as-is (content-type sniffed: JSON, SSE if it starts with `data:`/`event:`, else text/plain).
   */
  body?: unknown;
  /** Reply text (default `DEFAULT_REPLY_TEXT`). */
  text?: string;
  /** Content chunks when streaming (default 5; fewer if the text is shorter). */
  chunks?: number;
  /** Delay before the response headers (or before `resetBeforeHeaders`): first-byte timeouts. */
  delayMs?: number;
  /** Delay before each content chunk and before the closing events: idle timeouts, pacing. */
  chunkDelayMs?: number;
  /**
   * Stream: send the opening events and this many content chunks, then write nothing more while
   * the socket stays open. Non-stream: send headers only, then hang.
   */
  stallAfterChunks?: number;
  /**
   * Stream: send the opening events and this many content chunks, then destroy the socket
   * (the body ends without its terminator). Non-stream: headers and half the body, then destroy.
   */
  resetAfterChunks?: number;
  /** Destroy the socket (TCP RST) without answering: a network failure. */
  resetBeforeHeaders?: boolean;
  /**
   * Stream only: after a 200 and headers, send this as the first SSE event's data and end.
   * `true` generates a realistic error payload for the format; strings are sent verbatim.
   */
  streamError?: unknown;
  /**
   * Token counts reported in every usage field (default: ~length/4 estimates). `cached` (part of
   * input) and `reasoning` (part of output) are reported by the Gemini mode only.
   */
  usage?: { input: number; output: number; cached?: number; reasoning?: number };
  /**
   * Benchmarks, paced streams only (`chunkDelayMs` > 0): each occurrence of this marker in a
   * write is replaced by `process.hrtime.bigint()` (monotonic, machine-wide) at the moment of the
   * write, so a client on the same machine can tell how long each chunk took to reach it.
   */
  stampMarker?: string;
  /**
   * Answer with these tool calls (after `text`, which then defaults to none), finish reason
   * `tool_calls` / `tool_use`; streamed with each call's arguments split into `chunks` deltas.
   */
  toolCalls?: FakeToolCall[];
  /**
   * Stream only: after the opening events, send this many heartbeats `everyMs` apart before the
   * first content chunk (`event: ping` on Anthropic routes, a `: keep-alive` comment otherwise):
   * a stream that is alive but produces nothing.
   */
  heartbeats?: { count: number; everyMs: number };
  /**
   * Answer a continuation request (issue 28): the text is the rest of `finish.text` after the
   * partial answer in the request's last assistant turn.
   */
  finish?: FakeFinish;
  /**
   * The stall, reset or error after N chunks applies only when the stream has more than N
   * content chunks (a continuation with little left to say is not cut before its text).
   */
  cutsInsideText?: boolean;
  /**
   * The stall or reset after N chunks applies only when the stream has content chunks at all: a
   * stream with nothing to say that is cut is a failure before content, not a cut in its text.
   */
  cutsNeedText?: boolean;
  /** Stream in words (each content chunk one word with its white space) instead of `chunks`. */
  byWords?: boolean;
  /**
   * Stream only: after this many content chunks, an error event (realistic) ends the stream; a
   * stream with no more chunks than that is not cut (so the error never opens a stream).
   */
  errorAfterChunks?: number;
}

export interface RecordedRequest {
  method: string;
  /** The request target as received, query string included. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when empty or not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests poke into arbitrary request bodies.
  body: any;
  rawBody: string;
  /** Date.now() when the body had been read. */
  at: number;
  /** The client went away before the response finished (not set when the fake cut it itself). */
  aborted: boolean;
}

/** One scripted answer of an Anthropic account endpoint (limit reset). */
export interface FakeAccountAnswer {
  /** Default 200. */
  status?: number;
  /** Objects are JSON; strings go as-is. */
  body: unknown;
}

/**
 * Anthropic's limit-reset endpoints: `GET /api/oauth/usage` and
 * `POST /api/organizations/{orgUUID}/reset_rate_limits`. They consume no generation step.
 */
export interface FakeLimitReset {
  usage: FakeAccountAnswer;
  reset: FakeAccountAnswer;
}

export const DEFAULT_LIMIT_RESET: Readonly<FakeLimitReset> = {
  usage: { body: { juniper_tide: { arm: 'reset', available: true, next_available_at: null } } },
  reset: { body: { result: 'reset' } },
};

/** Anthropic's unified rate-limit headers, for `FakeStep.headers` (times in epoch seconds). */
export function unifiedHeaders(o: {
  status?: 'allowed' | 'allowed_warning' | 'rejected';
  reset?: number;
  slowOffer?: string;
  slowStatus?: string;
  slowRetryAfter?: number;
  slowMaxWait?: number;
  overageInUse?: boolean;
  budgetReset?: number;
}): Record<string, string> {
  const p = 'anthropic-ratelimit-unified-';
  const out: Record<string, string> = {};
  if (o.status !== undefined) out[`${p}status`] = o.status;
  if (o.reset !== undefined) out[`${p}reset`] = String(o.reset);
  if (o.slowOffer !== undefined) out[`${p}slow-offer`] = o.slowOffer;
  if (o.slowStatus !== undefined) out[`${p}slow-status`] = o.slowStatus;
  if (o.slowRetryAfter !== undefined) out[`${p}slow-retry-after`] = String(o.slowRetryAfter);
  if (o.slowMaxWait !== undefined) out[`${p}slow-max-wait`] = String(o.slowMaxWait);
  if (o.overageInUse !== undefined) out[`${p}overage-in-use`] = String(o.overageInUse);
  if (o.budgetReset !== undefined) out[`${p}slow-budget-reset`] = String(o.budgetReset);
  return out;
}

export interface FakeUpstream {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  /** Every request (LLM or not) in arrival order. Stays empty in `fast` mode. */
  requests: RecordedRequest[];
  /** Requests received, also counted in `fast` mode. */
  readonly requestCount: number;
  /** Requests whose client went away before the response finished, also counted in `fast` mode. */
  readonly abortCount: number;
  /** The most requests open at once (from body read to the response's close) since reset(). */
  readonly peakInFlight: number;
  /**
   * Queue steps. Each generation request (chat/completions, responses, messages) consumes one;
   * with the queue empty the default step is used. count_tokens, models and requests the fake
   * rejects itself (bad JSON, missing fields) consume none.
   */
  script(...steps: FakeStep[]): void;
  setDefault(step: FakeStep): void;
  /** Served by `/v1/models`; mutate or reassign freely. */
  models: string[];
  /**
   * When set, `/v1/models` answers with this instead of the list (e.g. a refused key:
   * `{status: 401, body: …}`); reset() clears it.
   */
  modelsAnswer: { status: number; body: unknown } | null;
  /** Answers of the limit-reset endpoints; mutate or reassign freely (reset() restores them). */
  limitReset: FakeLimitReset;
  /**
   * The per-key prompt cache (fake-cache.ts), when switched on with `promptCache: true`: usage
   * then counts the prompt's blocks and reports cache reads (and Anthropic's writes) as the
   * real APIs do, unless a step gives its own `usage`. reset() empties it.
   */
  readonly promptCache: FakePromptCache | null;
  /** Resolves once `requestCount >= n` (default timeout 5000 ms). */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /**
   * Resolves with the next request whose client disconnected before the response completed.
   * Aborts that happened before the call are queued, so calling it after the abort is fine.
   */
  waitForAbort(timeoutMs?: number): Promise<RecordedRequest>;
  /** Clear the script, recorded requests, counters, pending aborts and the default step. */
  reset(): void;
  /** Close the server and destroy every open socket (stalled streams included). Idempotent. */
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  models?: string[];
  /** Benchmarks: record no requests (counters only) and keep per-request work minimal. */
  fast?: boolean;
  /** Model a per-key prompt cache (see `FakeUpstream.promptCache`). */
  promptCache?: boolean;
}

export const DEFAULT_REPLY_TEXT = 'Hello from the Breakwater fake upstream. Everything is working.';
export const DEFAULT_MODELS: readonly string[] = [
  'gpt-4o-mini',
  'gpt-4.1',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
];
const DEFAULT_CHUNKS = 5;
const MODELS_CREATED = 1_700_000_000;

type Route = 'chat' | 'responses' | 'messages' | 'count_tokens' | 'models' | 'gemini';
type Format = 'openai' | 'anthropic' | 'gemini';
type Json = Record<string, unknown>;

interface Usage {
  input: number;
  output: number;
  /** From the prompt cache model: tokens of `input` read from and written to the cache. */
  cacheRead?: number;
  cacheWrite?: number;
}

/** What every stream builder returns: cut points for stalls/resets sit between the deltas. */
interface SsePlan {
  head: string;
  deltas: string[];
  tail: string;
}

/** Deterministic token estimate used for count_tokens and default usage. */
const estimateTokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The path without its query and its `/v1` (or Gemini's `/v1beta`) prefix. */
function bare(url: string): string {
  const q = url.indexOf('?');
  let p = q === -1 ? url : url.slice(0, q);
  if (p.startsWith('/v1/')) p = p.slice(3);
  else if (p.startsWith('/v1beta/')) p = p.slice(7);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

function route(url: string): Route | undefined {
  const p = bare(url);
  if (geminiCall(p)) return 'gemini';
  switch (p) {
    case '/chat/completions':
      return 'chat';
    case '/responses':
      return 'responses';
    case '/messages':
      return 'messages';
    case '/messages/count_tokens':
      return 'count_tokens';
    case '/models':
      return 'models';
    default:
      return undefined;
  }
}

/** The two limit-reset endpoints of an Anthropic account, by method and path. */
function accountRoute(method: string, url: string): keyof FakeLimitReset | undefined {
  const q = url.indexOf('?');
  const p = q === -1 ? url : url.slice(0, q);
  if (method === 'GET' && p === '/api/oauth/usage') return 'usage';
  if (method === 'POST' && /^\/api\/organizations\/[^/]+\/reset_rate_limits$/.test(p))
    return 'reset';
  return undefined;
}

/** Split by code points into at most `n` near-equal non-empty parts. */
function split(text: string, n: number): string[] {
  const cps = Array.from(text);
  const parts = Math.max(1, Math.min(Math.floor(n), cps.length));
  if (cps.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < parts; i++) {
    const a = Math.floor((i * cps.length) / parts);
    const b = Math.floor(((i + 1) * cps.length) / parts);
    out.push(cps.slice(a, b).join(''));
  }
  return out;
}

function sniffContentType(s: string): string {
  const t = s.trimStart();
  if (t.startsWith('data:') || t.startsWith('event:') || t.startsWith(':')) {
    return 'text/event-stream';
  }
  try {
    JSON.parse(s);
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

// --- error bodies ----------------------------------------------------------------------------

function openaiError(message: string, type: string, param: string | null, code: string | null) {
  return { error: { message, type, param, code } };
}

function anthropicError(type: string, message: string, requestId: string) {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** A realistic body for a scripted error status without an explicit `body`. */
function statusErrorBody(format: Format, status: number, requestId: string): Json {
  const message = `Fake upstream scripted error (HTTP ${status})`;
  if (format === 'gemini') return geminiError(status, message);
  if (format === 'anthropic') {
    const type =
      status === 400
        ? 'invalid_request_error'
        : status === 401
          ? 'authentication_error'
          : status === 403
            ? 'permission_error'
            : status === 404
              ? 'not_found_error'
              : status === 413
                ? 'request_too_large'
                : status === 429
                  ? 'rate_limit_error'
                  : status === 529
                    ? 'overloaded_error'
                    : status >= 500
                      ? 'api_error'
                      : 'invalid_request_error';
    return anthropicError(type, message, requestId);
  }
  if (status === 401) return openaiError(message, 'invalid_request_error', null, 'invalid_api_key');
  if (status === 403) return openaiError(message, 'permission_error', null, null);
  if (status === 404) return openaiError(message, 'invalid_request_error', null, 'model_not_found');
  if (status === 429) return openaiError(message, 'rate_limit_error', null, 'rate_limit_exceeded');
  if (status >= 500) return openaiError(message, 'server_error', null, null);
  return openaiError(message, 'invalid_request_error', null, null);
}

/** The first-and-only SSE event of a `streamError` step. */
function streamErrorEvent(r: Route, err: unknown): string {
  if (r === 'gemini') return geminiStreamError(err);
  if (r === 'chat') {
    const data =
      err === true
        ? openaiError(
            'The server had an error while processing your request.',
            'server_error',
            null,
            null,
          )
        : err;
    // Chat Completions streams carry no event names; the SDK throws on `data.error`.
    return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  }
  const data =
    err === true
      ? r === 'responses'
        ? {
            type: 'error',
            code: 'server_error',
            message: 'The server had an error while processing your request.',
            param: null,
            sequence_number: 0,
          }
        : { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
      : err;
  return `event: error\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Required-field checks, so translation bugs in the gateway surface as 400s like upstream. */
function validate(r: Route, body: Json): { param: string; message: string } | undefined {
  if (r === 'gemini') {
    // The model is in the path; Gemini refuses a request without contents.
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      return {
        param: 'contents',
        message: '* GenerateContentRequest.contents: contents is not specified',
      };
    }
    return undefined;
  }
  if (typeof body.model !== 'string' || body.model === '') {
    return { param: 'model', message: 'model: Field required' };
  }
  if (r === 'chat' || r === 'messages' || r === 'count_tokens') {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return { param: 'messages', message: 'messages: Field required (non-empty array)' };
    }
  }
  if (r === 'messages' && typeof body.max_tokens !== 'number') {
    return { param: 'max_tokens', message: 'max_tokens: Field required' };
  }
  return undefined;
}

// --- success bodies --------------------------------------------------------------------------

function chatUsage(u: Usage) {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function chatCompletion(id: string, created: number, model: string, text: string, u: Usage) {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: chatUsage(u),
  };
}

function chatStream(
  id: string,
  created: number,
  model: string,
  parts: string[],
  u: Usage,
  includeUsage: boolean,
): SsePlan {
  const chunk = (delta: Json, finish: string | null): string => {
    const c: Json = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (includeUsage) c.usage = null;
    return `data: ${JSON.stringify(c)}\n\n`;
  };
  let tail = chunk({}, 'stop');
  if (includeUsage) {
    const last = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [],
      usage: chatUsage(u),
    };
    tail += `data: ${JSON.stringify(last)}\n\n`;
  }
  return {
    head: chunk({ role: 'assistant', content: '', refusal: null }, null),
    deltas: parts.map((p) => chunk({ content: p }, null)),
    tail: `${tail}data: [DONE]\n\n`,
  };
}

function responsesUsage(u: Usage) {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.output,
  };
}

function responseObject(
  id: string,
  createdAt: number,
  model: string,
  status: 'in_progress' | 'completed',
  output: unknown[],
  usage: Usage | null,
) {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    metadata: {},
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: usage ? responsesUsage(usage) : null,
    user: null,
  };
}

function messageItem(itemId: string, status: 'in_progress' | 'completed', text: string | null) {
  return {
    id: itemId,
    type: 'message',
    status,
    role: 'assistant',
    content: text === null ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

function responsesStream(
  id: string,
  itemId: string,
  createdAt: number,
  model: string,
  text: string,
  parts: string[],
  u: Usage,
): SsePlan {
  let seq = 0;
  const ev = (type: string, fields: Json): string =>
    sse(type, { type, sequence_number: seq++, ...fields });
  const loc = { item_id: itemId, output_index: 0, content_index: 0 };
  const pending = responseObject(id, createdAt, model, 'in_progress', [], null);
  const head =
    ev('response.created', { response: pending }) +
    ev('response.in_progress', { response: pending }) +
    ev('response.output_item.added', {
      output_index: 0,
      item: messageItem(itemId, 'in_progress', null),
    }) +
    ev('response.content_part.added', {
      ...loc,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
  const deltas = parts.map((delta) =>
    ev('response.output_text.delta', { ...loc, delta, logprobs: [] }),
  );
  const done = messageItem(itemId, 'completed', text);
  const tail =
    ev('response.output_text.done', { ...loc, text, logprobs: [] }) +
    ev('response.content_part.done', {
      ...loc,
      part: { type: 'output_text', text, annotations: [], logprobs: [] },
    }) +
    ev('response.output_item.done', { output_index: 0, item: done }) +
    ev('response.completed', {
      response: responseObject(id, createdAt, model, 'completed', [done], u),
    });
  return { head, deltas, tail };
}

function anthropicUsage(u: Usage) {
  return {
    // Anthropic's input_tokens are the ones neither read from nor written to the cache.
    input_tokens: u.input - (u.cacheRead ?? 0) - (u.cacheWrite ?? 0),
    output_tokens: u.output,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
  };
}

function anthropicMessage(id: string, model: string, text: string, u: Usage) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(u),
  };
}

function anthropicStream(id: string, model: string, parts: string[], u: Usage): SsePlan {
  const start = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: anthropicUsage({ ...u, output: 1 }),
  };
  const head =
    sse('message_start', { type: 'message_start', message: start }) +
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }) +
    sse('ping', { type: 'ping' });
  const deltas = parts.map((p) =>
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: p },
    }),
  );
  const tail =
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: u.output },
    }) +
    sse('message_stop', { type: 'message_stop' });
  return { head, deltas, tail };
}

// --- server ----------------------------------------------------------------------------------

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const fast = opts.fast === true;
  // Ids are instance tag + counter: unique across fakes, no per-request randomness.
  const tag = randomBytes(4).toString('hex');
  let seq = 0;
  let queue: FakeStep[] = [];
  let defaultStep: FakeStep = {};
  let requestCount = 0;
  let abortCount = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let closing = false;
  let closePromise: Promise<void> | undefined;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const pendingAborts: RecordedRequest[] = [];
  type Waiter<T> = {
    resolve: (v: T) => void;
    reject: (e: Error) => void;
    timer: NodeJS.Timeout;
  };
  const countWaiters: (Waiter<void> & { n: number })[] = [];
  const abortWaiters: Waiter<RecordedRequest>[] = [];

  /** Sleeps that close() cancels (the awaiting handler is simply dropped). */
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const notifyCount = (): void => {
    for (let i = countWaiters.length - 1; i >= 0; i--) {
      const w = countWaiters[i]!;
      if (requestCount >= w.n) {
        countWaiters.splice(i, 1);
        clearTimeout(w.timer);
        w.resolve();
      }
    }
  };

  const noteAbort = (rec: RecordedRequest): void => {
    abortCount++;
    const w = abortWaiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(rec);
    } else {
      pendingAborts.push(rec);
    }
  };

  const sendJson = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string>,
  ): void => {
    const s = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? sniffContentType(body) : 'application/json',
      'content-length': Buffer.byteLength(s),
      ...headers,
    });
    res.end(s);
  };

  const gone = (res: ServerResponse): boolean => closing || res.destroyed;

  /** Hands everything written so far to the kernel, then cuts the connection (FIN, no terminator). */
  const cutAfterFlush = (res: ServerResponse, last: string, cut: () => void): void => {
    res.write(last, () => cut());
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Set by the fake when it cuts the connection itself, so that is not counted as a client abort.
    let killed = false;
    let rec: RecordedRequest | undefined;
    let started = 0;
    res.on('close', () => {
      if (res.writableFinished || killed || closing || started === 0) return;
      // fast mode keeps no records; build one only for abort waiters.
      rec ??= {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: undefined,
        rawBody: '',
        at: started,
        aborted: true,
      };
      rec.aborted = true;
      noteAbort(rec);
    });

    const bufs: Buffer[] = [];
    for await (const b of req) bufs.push(b as Buffer);
    const rawBody = bufs.length === 0 ? '' : Buffer.concat(bufs).toString('utf8');
    started = Date.now();
    requestCount++;
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    res.once('close', () => {
      inFlight--;
    });
    let body: Json | undefined;
    let parseFailed = false;
    if (rawBody !== '') {
      try {
        body = JSON.parse(rawBody) as Json;
      } catch {
        parseFailed = true;
      }
    }
    if (!fast) {
      rec = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        rawBody,
        at: started,
        aborted: false,
      };
      api.requests.push(rec);
    }
    notifyCount();

    const n = ++seq;
    const requestId = `req_${tag}${n}`;
    const idHeaders: Record<string, string> = {
      'x-request-id': requestId,
      'request-id': requestId,
    };
    const url = req.url ?? '/';
    const r = route(url);
    const gemini: GeminiCall | undefined = r === 'gemini' ? geminiCall(bare(url)) : undefined;
    const format: Format =
      r === 'gemini' || url.startsWith('/v1beta/')
        ? 'gemini'
        : r === 'messages' || r === 'count_tokens' || url.includes('/messages')
          ? 'anthropic'
          : 'openai';
    const fail = (status: number, param: string | null, message: string, oaCode: string | null) => {
      sendJson(
        res,
        status,
        format === 'gemini'
          ? geminiError(status, message)
          : format === 'anthropic'
            ? anthropicError(
                status === 404 ? 'not_found_error' : 'invalid_request_error',
                message,
                requestId,
              )
            : openaiError(message, 'invalid_request_error', param, oaCode),
        idHeaders,
      );
    };

    const account = accountRoute(req.method ?? '', url);
    if (account) {
      const answer = api.limitReset[account];
      return sendJson(res, answer.status ?? 200, answer.body, idHeaders);
    }
    if (r === undefined) return fail(404, null, `Invalid URL (${req.method} ${url})`, null);
    const wantMethod = r === 'models' ? 'GET' : 'POST';
    if (req.method !== wantMethod) {
      return fail(405, null, `Method ${req.method} not allowed for ${url}`, null);
    }

    if (r === 'models') {
      if (api.modelsAnswer) {
        return sendJson(res, api.modelsAnswer.status, api.modelsAnswer.body, idHeaders);
      }
      if (format === 'gemini') return sendJson(res, 200, geminiModels(api.models), idHeaders);
      const anthropicStyle = req.headers['anthropic-version'] !== undefined;
      const data = anthropicStyle
        ? api.models.map((id) => ({
            type: 'model',
            id,
            display_name: id,
            created_at: new Date(MODELS_CREATED * 1000).toISOString(),
          }))
        : api.models.map((id) => ({
            id,
            object: 'model',
            created: MODELS_CREATED,
            owned_by: 'breakwater-fake',
          }));
      const list = anthropicStyle
        ? {
            data,
            has_more: false,
            first_id: api.models[0] ?? null,
            last_id: api.models.at(-1) ?? null,
          }
        : { object: 'list', data };
      return sendJson(res, 200, list, idHeaders);
    }

    if (parseFailed || body === undefined || typeof body !== 'object' || Array.isArray(body)) {
      return fail(400, null, 'We could not parse the JSON body of your request.', null);
    }
    const invalid = validate(r, body);
    if (invalid) {
      return fail(400, invalid.param, invalid.message, 'missing_required_parameter');
    }
    if (r === 'count_tokens') {
      return sendJson(res, 200, { input_tokens: estimateTokens(rawBody) }, idHeaders);
    }
    if (gemini?.method === 'countTokens') {
      return sendJson(res, 200, { totalTokens: estimateTokens(rawBody) }, idHeaders);
    }

    // A generation request: consume a step.
    const step = queue.shift() ?? defaultStep;
    if (step.delayMs && step.delayMs > 0) {
      await wait(step.delayMs);
      if (gone(res)) return;
    }
    if (step.resetBeforeHeaders) {
      killed = true;
      const sock = req.socket;
      if (typeof sock.resetAndDestroy === 'function') sock.resetAndDestroy();
      else sock.destroy();
      return;
    }
    const status = step.status ?? 200;
    const headers = step.headers ? { ...idHeaders, ...step.headers } : idHeaders;
    if (step.body !== undefined) return sendJson(res, status, step.body, headers);
    if (status >= 300)
      return sendJson(res, status, statusErrorBody(format, status, requestId), headers);

    const model = gemini ? gemini.model : (body.model as string);
    const text = step.finish
      ? finishText(body, step.finish)
      : (step.text ?? (step.toolCalls ? '' : DEFAULT_REPLY_TEXT));
    const usage: FakeStep['usage'] & Usage = step.usage ?? {
      input: estimateTokens(rawBody),
      output: estimateTokens(text),
    };
    const cache = api.promptCache;
    if (cache && !step.usage && (r === 'messages' || r === 'chat' || r === 'responses')) {
      const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '');
      const counts = r === 'messages' ? cache.anthropic(key, body) : cache.openai(key, body);
      usage.input = cache.promptTokens(r === 'messages' ? 'anthropic' : 'openai', body);
      usage.cacheRead = counts.read;
      usage.cacheWrite = counts.written;
    }
    const created = Math.floor(started / 1000);
    const stream = gemini ? gemini.method === 'streamGenerateContent' : body.stream === true;
    const geminiReply = gemini
      ? { responseId: `resp_${tag}${n}`, model, text, calls: step.toolCalls ?? [], usage }
      : null;
    const toolReply: ToolReply | null =
      step.toolCalls && r !== 'gemini'
        ? {
            route: r,
            id:
              r === 'chat'
                ? `chatcmpl-${tag}${n}`
                : r === 'responses'
                  ? `resp_${tag}${n}`
                  : `msg_${tag}${n}`,
            suffix: `${tag}${n}`,
            created,
            model,
            text,
            calls: step.toolCalls,
            usage,
            chunks: step.chunks ?? 3,
          }
        : null;

    if (!stream) {
      const payload = geminiReply
        ? geminiBody(geminiReply)
        : toolReply
          ? toolReplyBody(toolReply)
          : r === 'chat'
            ? chatCompletion(`chatcmpl-${tag}${n}`, created, model, text, usage)
            : r === 'responses'
              ? responseObject(
                  `resp_${tag}${n}`,
                  created,
                  model,
                  'completed',
                  [messageItem(`msg_${tag}${n}`, 'completed', text)],
                  usage,
                )
              : anthropicMessage(`msg_${tag}${n}`, model, text, usage);
      if (step.stallAfterChunks === undefined && step.resetAfterChunks === undefined) {
        return sendJson(res, status, payload, headers);
      }
      const s = JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(s),
        ...headers,
      });
      if (step.resetAfterChunks !== undefined) {
        killed = true;
        cutAfterFlush(res, s.slice(0, Math.floor(s.length / 2)), () => req.socket.destroy());
      } else {
        res.flushHeaders();
      }
      return;
    }

    res.writeHead(status, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    if (step.streamError !== undefined) {
      res.end(streamErrorEvent(r, step.streamError));
      return;
    }
    const parts = step.byWords ? wordsOf(text) : split(text, step.chunks ?? DEFAULT_CHUNKS);
    const plan = geminiReply
      ? geminiStream(geminiReply, parts)
      : toolReply
        ? toolReplyStream(
            toolReply,
            (body.stream_options as Json | undefined)?.include_usage === true,
          )
        : r === 'chat'
          ? chatStream(
              `chatcmpl-${tag}${n}`,
              created,
              model,
              parts,
              usage,
              (body.stream_options as Json | undefined)?.include_usage === true,
            )
          : r === 'responses'
            ? responsesStream(
                `resp_${tag}${n}`,
                `msg_${tag}${n}`,
                created,
                model,
                text,
                parts,
                usage,
              )
            : anthropicStream(`msg_${tag}${n}`, model, parts, usage);

    let head = plan.head;
    if (step.heartbeats) {
      const beat = r === 'messages' ? sse('ping', { type: 'ping' }) : ': keep-alive\n\n';
      res.write(head);
      head = '';
      for (let i = 0; i < step.heartbeats.count; i++) {
        await wait(step.heartbeats.everyMs);
        if (gone(res)) return;
        res.write(beat);
      }
    }
    const gap = step.chunkDelayMs ?? 0;
    const inside = (n: number | undefined): number =>
      n === undefined ||
      (step.cutsInsideText && n >= plan.deltas.length) ||
      (step.cutsNeedText && plan.deltas.length === 0)
        ? Number.POSITIVE_INFINITY
        : n;
    const stallAt = inside(step.stallAfterChunks);
    const resetAt = inside(step.resetAfterChunks);
    const errorAt =
      step.errorAfterChunks !== undefined && step.errorAfterChunks < plan.deltas.length
        ? step.errorAfterChunks
        : Number.POSITIVE_INFINITY;
    const cutAt = Math.max(0, Math.min(stallAt, resetAt, errorAt));
    if (gap <= 0 && cutAt === Number.POSITIVE_INFINITY) {
      // The common (benchmark) path: one write.
      res.end(head + plan.deltas.join('') + plan.tail);
      return;
    }
    const marker = step.stampMarker;
    const stamped = (s: string): string =>
      marker ? s.replaceAll(marker, String(process.hrtime.bigint())) : s;
    let pending = head;
    for (let i = 0; i < plan.deltas.length && i < cutAt; i++) {
      if (gap > 0) {
        res.write(stamped(pending));
        pending = '';
        await wait(gap);
        if (gone(res)) return;
      }
      pending += plan.deltas[i]!;
    }
    if (cutAt === Number.POSITIVE_INFINITY) {
      if (gap > 0) {
        res.write(stamped(pending));
        await wait(gap);
        if (gone(res)) return;
        res.end(plan.tail);
      } else {
        res.end(pending + plan.tail);
      }
      return;
    }
    if (errorAt < Math.min(stallAt, resetAt)) {
      res.end(pending + streamErrorEvent(r, true));
    } else if (resetAt <= stallAt) {
      killed = true;
      cutAfterFlush(res, pending, () => req.socket.destroy());
    } else {
      res.write(pending); // then nothing, ever: the socket stays open until the client or close()
    }
  }

  const server = createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, s) => s.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const api: FakeUpstream = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: [],
    get requestCount() {
      return requestCount;
    },
    get peakInFlight() {
      return peakInFlight;
    },
    get abortCount() {
      return abortCount;
    },
    models: [...(opts.models ?? DEFAULT_MODELS)],
    modelsAnswer: null,
    limitReset: structuredClone(DEFAULT_LIMIT_RESET) as FakeLimitReset,
    promptCache: opts.promptCache ? new FakePromptCache() : null,
    script(...steps) {
      queue.push(...steps);
    },
    setDefault(step) {
      defaultStep = step;
    },
    waitForRequests(n, timeoutMs = 5000) {
      if (requestCount >= n) return Promise.resolve();
      if (closing) return Promise.reject(new Error('fake upstream is closed'));
      return new Promise<void>((resolve, reject) => {
        const w = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            countWaiters.splice(countWaiters.indexOf(w), 1);
            reject(
              new Error(
                `waitForRequests(${n}): only ${requestCount} arrived within ${timeoutMs} ms`,
              ),
            );
          }, timeoutMs),
        };
        countWaiters.push(w);
      });
    },
    waitForAbort(timeoutMs = 5000) {
      const ready = pendingAborts.shift();
      if (ready) return Promise.resolve(ready);
      if (closing) return Promise.reject(new Error('fake upstream is closed'));
      return new Promise<RecordedRequest>((resolve, reject) => {
        const w: Waiter<RecordedRequest> = {
          resolve,
          reject,
          timer: setTimeout(() => {
            abortWaiters.splice(abortWaiters.indexOf(w), 1);
            reject(new Error(`waitForAbort: no client abort within ${timeoutMs} ms`));
          }, timeoutMs),
        };
        abortWaiters.push(w);
      });
    },
    reset() {
      queue = [];
      defaultStep = {};
      api.requests.length = 0;
      pendingAborts.length = 0;
      requestCount = 0;
      abortCount = 0;
      peakInFlight = inFlight;
      api.limitReset = structuredClone(DEFAULT_LIMIT_RESET) as FakeLimitReset;
      api.modelsAnswer = null;
      api.promptCache?.clear();
    },
    close() {
      if (closePromise) return closePromise;
      closing = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const err = new Error('fake upstream closed');
      for (const w of [...countWaiters.splice(0), ...abortWaiters.splice(0)]) {
        clearTimeout(w.timer);
        w.reject(err);
      }
      closePromise = new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        sockets.clear();
      });
      return closePromise;
    },
  };
  return api;
}
