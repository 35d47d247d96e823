import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientFormat, ComboConfig, GatewayApiKeyConfig } from '../../../../shared/contract';
import type { Catalog } from '../../config/catalog';
import type { Seam } from '../../resilience/continuation';
import type { ManagedLease } from '../../resilience/leases';
import type { ShareTicket } from '../../routing/fair-share';
import type { Candidate } from '../../routing/resolve';
import type { ThroughputWatchdogOptions } from '../../settings/resilience-defaults';
import type { WireFormat } from '../../translate';
import type { IrRequest } from '../../translate/ir';
import type { PromptBlocks } from '../../translate/prompt-blocks';
import type { BudgetReservation } from '../../usage/budgets';
import { emptyUsage, type Usage } from '../../usage/usage';
import type { GatewayError } from '../../wire/client-errors';
import { type Endpoint, findEndpoint, formatForUnknownPath } from '../endpoints';
import { NO_BYTES, type PooledBody, releaseBody } from './body-block';
import { type HeldCapture, releaseRequestBodies } from './capture-held';
import type { Decision } from './decision';
import type { ContinuationSettings, PipelineDeps } from './deps';

/** A stage of the front door: it may refuse, or answer itself (the model list, the dashboard). */

/** A top-level `model` string's bytes in `of`, quotes included. */
export interface ModelSpan {
  of: Buffer;
  start: number;
  end: number;
}
export interface DoorStage {
  readonly name: string;
  run(door: Door, deps: PipelineDeps): Decision | Promise<Decision>;
}

/** A stage of a request whose body is in; `after` runs in reverse order once it is answered. */
export interface RequestStage {
  readonly name: string;
  run(ctx: RequestContext, deps: PipelineDeps): Decision | Promise<Decision>;
  after?(ctx: RequestContext, deps: PipelineDeps): void;
}

/** A request at the front door: nothing about it is trusted or read yet. */
export interface Door {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** The endpoint the path names, or null (the model list, the dashboard, unknown paths). */
  readonly endpoint: Endpoint | null;
  /** The API format refusals are written in. */
  readonly format: ClientFormat;
  /** The gateway API key the client presented (null when none are configured). */
  key: GatewayApiKeyConfig | null;
  /** The body, once read; refusals before it close the connection. */
  raw: Buffer | null;
  /** The pooled block `raw` was joined into, if it was (body-block.ts). */
  pooled: PooledBody | null;
}

export function doorFor(req: IncomingMessage, res: ServerResponse, url: URL): Door {
  const endpoint = findEndpoint(url.pathname) ?? null;
  return {
    req,
    res,
    url,
    endpoint,
    format:
      endpoint?.format ?? formatForUnknownPath(url.pathname, req.headers['anthropic-version']),
    key: null,
    raw: null,
    pooled: null,
  };
}

/** A request body put in another API's format for one kind of upstream (see translate/). */
export interface TranslatedBody {
  wire: WireFormat;
  json: Record<string, unknown>;
  /** What the translation left out knowingly: the `X-Breakwater-Dropped` header. */
  dropped: string;
  /** Freeform tools of a Responses client, whose calls go back as `custom_tool_call`. */
  customTools: ReadonlySet<string>;
}

/**
 * A client stream waiting for, or receiving, a continuation (issue 28): the pure seam, the
 * conversation a continuation request carries, and the error event the stream ends with when
 * no continuation comes.
 */
export interface StreamContinuation {
  readonly seam: Seam;
  readonly request: IrRequest;
  /** The error event the stream ends with when it is not continued. */
  ending: GatewayError;
}

/** Everything one client request accumulates on its way through the stages. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly endpoint: Endpoint;
  /** The client's query string (`?…` or empty). */
  readonly search: string;
  readonly now: () => number;
  readonly started: number;
  readonly bytesIn: number;
  /** The gateway API key this request presented, if keys are configured. */
  readonly key: GatewayApiKeyConfig | null;
  /** Providers, connections and combos as they were when the request came in. */
  readonly catalog: Catalog;
  model: string;
  stream: boolean;
  /** The session the request belongs to (affinity, §9), from a header or its body; parse.ts. */
  session: string | null;
  /** The client named its own `prompt_cache_key` (prompt-cache.ts then adds none). */
  clientCacheKey?: true;
  /**
   * The session left the connection holding its cache (dispatch.ts): where it was pinned and
   * what moved it, for the cache watch (cache-watch.ts).
   */
  cacheMove?: { from: string; why: string };
  /** A session turn's prompt digests for the cache watch (cache-watch.ts); null without one. */
  cacheBlocks: PromptBlocks | null;
  /**
   * What `after` of the stage that set it lets go or reports: the key budget's hold
   * (reserve.ts), the quota-share place and the cache-optimized prefix hash (strategy.ts). On
   * the context rather than in maps keyed by it: a WeakMap entry per request makes every young
   * collection dearer.
   */
  reservation: BudgetReservation | null;
  shareTicket: ShareTicket | null;
  cachePrefix: string | null;
  /** The client's `stream_options`, when it sent some (a Chat stream's usage: stream-usage.ts). */
  streamOptions?: unknown;
  /**
   * Bytes of a passthrough Chat stream's content (stream-usage.ts): what a token estimate counts
   * when the provider reports no usage, instead of the event framing around it.
   */
  contentBytes?: number;
  /** A Responses request with `background: true` (served synchronously: background.ts). */
  background: boolean;
  /** The request parsed, or null until something needs it (see `bodyOf`). */
  parsed: Record<string, unknown> | null;
  /**
   * Where the scan of a large body found its one top-level `model` string (parse.ts), so a
   * rename splices there instead of searching the body again; only for the bytes in `of`.
   */
  modelSpan: ModelSpan | null;
  /**
   * The body has a top-level member by which some format asks for reasoning (parse.ts): without
   * one, no translator finds reasoning, so rules and capabilities need not build the IR to know.
   */
  mayReason: boolean;
  /** The request in the internal form, once a stage needed it (request-ir.ts). */
  ir?: IrRequest;
  /** Its estimated input tokens, once a stage needed them (request-ir.ts). */
  inputTokens?: number;
  raw: Buffer;
  /**
   * The pooled block the client's body was joined into, until the request is over (run.ts);
   * what is sent upstream is made of the chunks instead (body-block.ts).
   */
  pooled: PooledBody | null;
  /** Steps routing took, for the log and the `X-Breakwater-Decision` header. */
  steps: string[];
  /** The combo the model named (route.ts), if it named one. */
  combo: ComboConfig | null;
  /** The candidates routing found, in the order to try them. */
  candidates: readonly Candidate[];
  served: Candidate | null;
  status: number;
  ttfb: number | null;
  bytesOut: number;
  usage: Usage;
  errorClass: string | null;
  errorMessage: string | null;
  clientGone: boolean;
  /** Local address the upstream connection left from. */
  egressIp: string | null;
  /** Request bodies translated for other formats, by `wire|providerFormat` (see translate/). */
  translated?: Map<string, TranslatedBody>;
  /** The exclusive lease a managed request holds (it passed the fence). */
  lease: ManagedLease | null;
  /** `streamContinuation.*` for this request's streams; null when it is off. */
  readonly continuation: Readonly<ContinuationSettings> | null;
  /**
   * The request's bytes, kept past the head for a continuation request (issue 28), until the
   * request is over (run.ts): the chunks they arrived in when they were joined into a pooled
   * block (body-block.ts), joined again only if a continuation is made.
   */
  retained: Buffer | readonly Buffer[] | null;
  /** A stream being continued after a cut (continuation.ts); unset until one is. */
  seam?: StreamContinuation;
  /** Throughput watchdog settings (§6) for this request's streams; null when it is off. */
  readonly watchdog: ThroughputWatchdogOptions | null;
  /** What the client should know about how its request was served: `X-Breakwater-Warning`. */
  warnings?: string[];
  /**
   * What is held for a captured call (capture.ts): unset until the first attempt, null when the
   * request is not captured.
   */
  captured?: HeldCapture | null;
  /** Cancels the upstream attempt in flight when the client goes away (one listener per request). */
  abortAttempt: (() => void) | null;
  /**
   * The head of a streaming answer left early to keep the client alive through a quota wait:
   * later errors go out as an error event in the stream (quota-wait.ts).
   */
  heldOpen?: boolean;
}

const NO_CANDIDATES: readonly Candidate[] = Object.freeze([]);

/** The context of a request whose body is in: its clock starts now. */
export function contextFor(
  door: Door,
  endpoint: Endpoint,
  raw: Buffer,
  deps: PipelineDeps,
): RequestContext {
  const url = door.req.url;
  const q = url?.indexOf('?') ?? -1;
  return {
    req: door.req,
    res: door.res,
    endpoint,
    search: q >= 0 && url ? url.slice(q) : '',
    now: () => deps.clock.now(),
    started: deps.clock.now(),
    bytesIn: raw.length,
    key: door.key,
    catalog: deps.catalog(),
    model: '',
    stream: false,
    session: null,
    background: false,
    parsed: null,
    modelSpan: null,
    mayReason: false,
    raw,
    pooled: door.pooled,
    steps: [],
    combo: null,
    candidates: NO_CANDIDATES,
    served: null,
    status: 0,
    ttfb: null,
    bytesOut: 0,
    usage: emptyUsage(),
    errorClass: null,
    errorMessage: null,
    clientGone: false,
    egressIp: null,
    lease: null,
    continuation: deps.continuation?.() ?? null,
    retained: null,
    watchdog: deps.watchdog?.() ?? null,
    abortAttempt: null,
    cacheBlocks: null,
    reservation: null,
    shareTicket: null,
    cachePrefix: null,
    // Every member a stage may set later is here from the start, and none is ever deleted: then
    // all contexts keep one shape in V8 however many features a request touches, so the stages'
    // reads of them stay monomorphic (a member added later gives the object a new shape for
    // each combination of features; a deleted one makes it a dictionary for the rest of its life).
    clientCacheKey: undefined,
    cacheMove: undefined,
    streamOptions: undefined,
    contentBytes: undefined,
    ir: undefined,
    inputTokens: undefined,
    translated: undefined,
    seam: undefined,
    warnings: undefined,
    captured: undefined,
    heldOpen: undefined,
  };
}

/** The request as objects: parsed on first use when the parse stage only scanned it. */
export function bodyOf(ctx: RequestContext): Record<string, unknown> {
  ctx.parsed ??= JSON.parse(ctx.raw.toString('utf8')) as Record<string, unknown>;
  return ctx.parsed;
}

/**
 * The answer's head is written: no other candidate can serve this request any more, so the
 * request body in its forms (bytes, parsed, translated) is let go instead of being held for as
 * long as the stream runs; only undici keeps the copy it sent until the answer completes. With
 * agent requests of 50-200 KB that is most of a stream's memory.
 */
export function committed(ctx: RequestContext): void {
  const pooled = ctx.pooled;
  // A stream that may be continued keeps the conversation the continuation request carries: as
  // the chunks it arrived in when it is still the pooled block's (a multi-call strategy or the
  // background stage may have made a new body since), and the block can go back now.
  if (ctx.continuation !== null && ctx.stream) {
    ctx.retained ??=
      pooled !== null && ctx.raw.buffer === pooled.block.buffer ? pooled.chunks : ctx.raw;
  }
  ctx.raw = NO_BYTES;
  ctx.parsed = {};
  ctx.ir = undefined;
  if (ctx.translated) for (const t of ctx.translated.values()) t.json = {};
  releaseRequestBodies(ctx.captured);
  // A capture of every call (`captureBodies: all`) reads the client's body when the log row is
  // written: then the block waits for the end of the request (run.ts).
  if (pooled !== null && !ctx.captured?.client) releaseBody(ctx);
}

export function markClientAbort(ctx: RequestContext): void {
  ctx.status = 499;
  ctx.errorClass = 'client_abort';
  ctx.errorMessage = 'client disconnected before the answer was complete';
}
