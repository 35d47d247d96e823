import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestLogEntry, UpstreamTimeouts } from '../../../shared/contract';
import type { Clock } from '../clock';
import type { Catalog } from '../config/catalog';
import type { Logger } from '../logger';
import { redactSecrets } from '../logger';
import { sessionIdOf } from '../resilience/affinity';
import { type Classification, classify, type OperatorRule } from '../resilience/error-rules';
import type { FlowControl, FlowHold } from '../resilience/flow-control';
import {
  type GatewayKey,
  type LeaseService,
  type ManagedLease,
} from '../resilience/lease-service';
import type { ResilienceManager } from '../resilience/manager';
import { NO_RATE_LIMIT, QueueRejection } from '../resilience/request-queue';
import type { SubscriptionService } from '../resilience/subscription-service';
import { noTargetAnswer } from '../routing/no-target';
import { type Candidate, expandCandidates, routeModel } from '../routing/resolve';
import type { ThroughputWatchdogOptions } from '../settings/resilience-defaults';
import {
  createStreamTranslator,
  customToolsOf,
  droppedHeader,
  emitRequest,
  emitResponse,
  estimateInputTokens,
  type IrUsage,
  isJsonObject,
  parseError,
  parseRequest,
  parseResponse,
  responseAsStream,
  TranslationError,
  upstreamFormatFor,
  type WireFormat,
} from '../translate';
import {
  AttemptCancel,
  type CancelState,
  ClientAbortError,
  classifyAttemptError,
  DeadlineError,
  readBounded,
} from '../upstream/attempt';
import { peekOpeningError, type StreamOpeningError } from '../upstream/first-event';
import { clientResponseHeaders, upstreamHeaders } from '../upstream/headers';
import { type UpstreamPools, type UpstreamResponse, upstreamPath } from '../upstream/pools';
import type { BodyReader } from '../upstream/upstream-body';
import { clientErrorFromUpstream, readUpstreamError } from '../upstream/upstream-errors';
import { emptyUsage, mergeUsage, SseUsageObserver, type Usage, usageOfBody } from '../usage/usage';
import {
  type ErrorKind,
  errorBody,
  type GatewayError,
  sendError,
  streamErrorEvent,
} from '../wire/client-errors';
import { forEachMember, keyIs } from '../wire/json-members';
import { isValidJson } from '../wire/json-validate';
import { rewriteTopLevelModel } from '../wire/model-rewrite';
import type { Endpoint } from './endpoints';
import {
  HOLD_LIMIT_BYTES,
  StreamWatch,
  ThroughputTripError,
  WATCHDOG_ERROR_CLASS,
} from './stream-watch';

export interface PipelineDeps {
  catalog(): Catalog;
  /** The same object until settings change: merges with provider timeouts are kept by it. */
  timeouts(): Readonly<UpstreamTimeouts>;
  pools: UpstreamPools;
  clock: Clock;
  log: Logger;
  /** Upstream attempts currently open, per connection (for the snapshot). */
  inFlight: Map<string, number>;
  /** Exclusive session leases (§10): fence, candidate plan, and where a managed request landed. */
  leases?: LeaseService;
  /** Called once per request with its log row (batched to SQLite and emitted as an event). */
  record(entry: Omit<RequestLogEntry, 'id'>): void;
  /** Breaker, cooldown and lockout state: decides which candidates may go, learns outcomes. */
  resilience: ResilienceManager;
  failoverBudgetMs(): number;
  /** The emergency fallback target (`provider/model`) when set and switched on. */
  emergencyFallback(): string | null;
  errorRules(): readonly OperatorRule[];
  /** maxConcurrent semaphores, request queues and session affinity. */
  flow: FlowControl;
  /** Anthropic subscription accounts: low-priority lane and limit reset (§2). */
  subscription?: SubscriptionService;
  cooldownWait(): Readonly<{
    enabled: boolean;
    maxWaitMs: number;
    maxAttempts: number;
    budgetMs: number;
  }>;
  /** Reports a queue rejection for the event stream. */
  events?(r: { code: string; candidate: Candidate; message: string }): void;
  /** Stream throughput watchdog settings (§6) when it is switched on, else null. */
  watchdog?(): ThroughputWatchdogOptions | null;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const NON_STREAM_USAGE_LIMIT = 4 * 1024 * 1024;

/** Everything one client request accumulates on its way through the stages. */
interface RequestContext {
  readonly endpoint: Endpoint;
  /** The client's query string (`?…` or empty). */
  readonly search: string;
  readonly now: () => number;
  readonly started: number;
  readonly bytesIn: number;
  model: string;
  stream: boolean;
  /** The request parsed, or null until something needs it (see `bodyOf`). */
  parsed: Record<string, unknown> | null;
  raw: Buffer;
  /** Steps routing took, for the log and the `X-Breakwater-Decision` header. */
  steps: string[];
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
  lease?: ManagedLease | null;
  /** Throughput watchdog settings (§6) for this request's streams; null when it is off. */
  readonly watchdog: ThroughputWatchdogOptions | null;
  /** Cancels the upstream attempt in flight when the client goes away (one listener per request). */
  abortAttempt: (() => void) | null;
}

type Stage = (ctx: RequestContext) => GatewayError | null;

function searchOf(url: string | undefined): string {
  const q = url?.indexOf('?') ?? -1;
  return q >= 0 && url ? url.slice(q) : '';
}

function invalid(code: string, message: string, param?: string): GatewayError {
  return { status: 400, kind: 'invalid_request', code, message, ...(param ? { param } : {}) };
}

/**
 * The request pipeline. Stages run in this order, and the first one that answers ends the
 * request before anything is sent upstream:
 *   1. parse     — JSON body, `model`, `stream`
 *   2. route     — model → targets (combo, provider/model, bare model) → candidates; a target
 *                  of another format gets the request translated (translate/), once per format
 *   3. dispatch  — candidates in priority order; a network error or 5xx before any byte
 *                  reached the client moves on to the next candidate
 *   4. relay     — status, headers and body back to the client with backpressure; translated
 *                  event by event when the provider speaks another format
 *   5. record    — exactly one log row per request, whatever happened above
 * Resilience gates (breaker, cooldown, lockout, queue) slot in between route and dispatch and
 * see each attempt's outcome after it.
 */
export function handleProxyRequest(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: Endpoint,
  raw: Buffer,
  deps: PipelineDeps,
  /** The gateway API key this request presented, if keys are configured. */
  gatewayKey: GatewayKey | null = null,
): Promise<void> {
  // Not async itself: a suspended async function keeps its parameters for as long as it runs,
  // and `raw` must live on in `ctx` only, which lets it go once an answer is committed.
  return runPipeline(contextFor(req, endpoint, raw, deps), req, res, deps, gatewayKey);
}

function contextFor(
  req: IncomingMessage,
  endpoint: Endpoint,
  raw: Buffer,
  deps: PipelineDeps,
): RequestContext {
  return {
    endpoint,
    search: searchOf(req.url),
    now: () => deps.clock.now(),
    started: deps.clock.now(),
    bytesIn: raw.length,
    model: '',
    stream: false,
    parsed: null,
    raw,
    steps: [],
    served: null,
    status: 0,
    ttfb: null,
    bytesOut: 0,
    usage: emptyUsage(),
    errorClass: null,
    errorMessage: null,
    clientGone: false,
    egressIp: null,
    watchdog: deps.watchdog?.() ?? null,
    abortAttempt: null,
  };
}

async function runPipeline(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  deps: PipelineDeps,
  gatewayKey: GatewayKey | null,
): Promise<void> {
  res.once('close', () => {
    // After a complete answer there is nothing left to cancel (and no Error worth making).
    if (res.writableFinished) return;
    ctx.clientGone = true;
    ctx.abortAttempt?.();
  });
  try {
    const parseError = parse(ctx);
    if (parseError) return fail(ctx, res, parseError);
    // Lease fence (§10): a stale or unknown generation is refused before anything is dispatched.
    const fenced = deps.leases?.fence(gatewayKey, req.headers, ctx.now());
    if (fenced && !fenced.ok) return fail(ctx, res, fenced.error);
    ctx.lease = fenced?.managed ?? null;
    const catalog = deps.catalog();
    let routed = route(ctx, catalog);
    if ('status' in routed) return fail(ctx, res, routed);
    if (ctx.endpoint.countTokens && routed[0]!.target.provider.format !== 'anthropic') {
      return answerTokenEstimate(ctx, res, routed[0]!);
    }
    if (deps.leases) {
      // Others' leased connections are skipped; a managed request goes to its own connection.
      const planned = deps.leases.plan(ctx.lease, routed, ctx.now());
      if ('status' in planned) return fail(ctx, res, planned);
      if (planned.note) ctx.steps.push(planned.note);
      for (const s of planned.skipped) ctx.steps.push(`${s.target} skipped (${s.reason})`);
      if (planned.candidates.length === 0) {
        return fail(
          ctx,
          res,
          noTargetAnswer(ctx.model, planned.skipped, planned.skipped.length, 0),
        );
      }
      routed = planned.candidates;
    }
    await new Dispatch(ctx, req, res, routed, catalog, deps).run();
    if (ctx.lease && ctx.served && ctx.status >= 200 && ctx.status < 300) {
      deps.leases?.served(ctx.lease, ctx.served.connection.id, ctx.now());
    }
  } catch (err) {
    deps.log.error(`proxy: unexpected failure: ${(err as Error).stack ?? String(err)}`);
    fail(ctx, res, {
      status: 500,
      kind: 'internal',
      code: 'internal_error',
      message: 'Breakwater hit an internal error handling this request; see the gateway log',
    });
  } finally {
    record(ctx, deps);
  }
}

/**
 * Bodies at least this large are checked by a byte scan and parsed only if something needs
 * them. V8 allocates strings over 128 KB one by one in their own pages, which made decoding and
 * parsing a 130 KB request cost about 1.5 ms here against 80 µs at 100 KB; below the mark
 * JSON.parse is three times faster than the scan. Agents send such requests every turn.
 */
const LAZY_PARSE_BYTES = 96 * 1024;
const MODEL_KEY = Buffer.from('"model"');
const STREAM_KEY = Buffer.from('"stream"');

const parse: Stage = (ctx) => {
  const raw = ctx.raw;
  let model: unknown;
  let stream: unknown;
  if (raw.length < LAZY_PARSE_BYTES || !isValidJson(raw)) {
    // Small, or invalid (JSON.parse says why): parsed whole, as any request used to be.
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      return invalid('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return invalid('invalid_body', 'request body must be a JSON object');
    }
    ctx.parsed = body as Record<string, unknown>;
    model = ctx.parsed.model;
    stream = ctx.parsed.stream;
  } else {
    let modelAt: [number, number] | null = null;
    let streamAt: [number, number] | null = null;
    // The last of a repeated key counts, as in JSON.parse.
    const isObject = forEachMember(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
      if (keyIs(raw, keyStart, keyEnd, MODEL_KEY)) modelAt = [valueStart, valueEnd];
      else if (keyIs(raw, keyStart, keyEnd, STREAM_KEY)) streamAt = [valueStart, valueEnd];
    });
    if (!isObject) return invalid('invalid_body', 'request body must be a JSON object');
    model = valueAt(raw, modelAt);
    stream = valueAt(raw, streamAt);
  }
  if (typeof model !== 'string' || model.trim() === '') {
    return invalid('missing_model', '`model` is required and must be a non-empty string', 'model');
  }
  ctx.model = model;
  ctx.stream = !ctx.endpoint.countTokens && stream === true;
  return null;
};

/** A member's value (a few bytes: a model name, `true`), parsed alone. */
function valueAt(raw: Buffer, at: [number, number] | null): unknown {
  return at ? JSON.parse(raw.toString('utf8', at[0], at[1])) : undefined;
}

/** The request as objects: parsed on first use when the parse stage only scanned it. */
function bodyOf(ctx: RequestContext): Record<string, unknown> {
  ctx.parsed ??= JSON.parse(ctx.raw.toString('utf8')) as Record<string, unknown>;
  return ctx.parsed;
}

function route(ctx: RequestContext, catalog: Catalog): readonly Candidate[] | GatewayError {
  const routed = routeModel(catalog, ctx.model);
  if (routed.expansion === null) {
    const { resolution } = routed;
    if (resolution.kind === 'ambiguous') {
      return invalid(
        'ambiguous_model',
        `model "${ctx.model}" is listed by several providers (${resolution.providers.join(', ')}); ` +
          `name one as "provider/${ctx.model}" or define a combo`,
        'model',
      );
    }
    return {
      status: 404,
      kind: 'not_found',
      code: 'model_not_found',
      param: 'model',
      message: `model "${ctx.model}" is not known to Breakwater; looked in: ${resolution.lookedIn.join('; ')}`,
    };
  }
  const { resolution } = routed;
  if (resolution.combo) ctx.steps.push(`combo ${resolution.combo}`);
  // Translation happens later, per candidate about to be tried (dispatch): the first target
  // serves almost every request, so translating for all of them up front is wasted work.
  const { candidates, unexecutable } = routed.expansion;
  if (candidates.length === 0) {
    const reasons = unexecutable.map((u) => `${u.target}: ${u.reason}`).join('; ');
    return {
      status: 404,
      kind: 'not_found',
      code: 'no_executable_targets',
      message: `model "${ctx.model}" has no target that can be executed (${reasons || 'no targets'})`,
      extra: {
        diagnostics: { poolSize: resolution.targets.length, attempted: 0, excluded: unexecutable },
      },
    };
  }
  if (ctx.endpoint.countTokens) {
    // Only Anthropic providers count tokens; the others get an estimate (answerTokenEstimate).
    const native = candidates.filter((c) => c.target.provider.format === 'anthropic');
    if (native.length > 0) return native;
  }
  return candidates;
}

interface TranslatedBody {
  wire: WireFormat;
  json: Record<string, unknown>;
  /** What the translation left out knowingly: the `X-Breakwater-Dropped` header. */
  dropped: string;
  /** Freeform tools of a Responses client, whose calls go back as `custom_tool_call`. */
  customTools: ReadonlySet<string>;
}

/** The upstream API a candidate is called in when it is not the client's own, else null. */
function wireFor(ctx: RequestContext, candidate: Candidate): WireFormat | null {
  return upstreamFormatFor(ctx.endpoint.format, candidate.target.provider.format);
}

function translatedFor(ctx: RequestContext, candidate: Candidate): TranslatedBody | undefined {
  return ctx.translated?.get(`${wireFor(ctx, candidate)}|${candidate.target.provider.format}`);
}

/**
 * Translates the request once per upstream format its targets need. A target whose format
 * cannot express the request is skipped; when none is left, the client learns why.
 */
function translateFor(ctx: RequestContext, targets: Candidate['target'][]) {
  if (ctx.endpoint.countTokens) return targets;
  const kept: Candidate['target'][] = [];
  let failure: TranslationError | null = null;
  let ir: ReturnType<typeof parseRequest> | null = null;
  for (const t of targets) {
    const wire = upstreamFormatFor(ctx.endpoint.format, t.provider.format);
    const key = `${wire}|${t.provider.format}`;
    if (wire === null || ctx.translated?.has(key)) {
      kept.push(t);
      continue;
    }
    try {
      ir ??= parseRequest(ctx.endpoint.format, bodyOf(ctx));
      const emitted = emitRequest(wire, ir.value, t.provider.format);
      ctx.translated ??= new Map();
      ctx.translated.set(key, {
        wire,
        json: emitted.value,
        dropped: droppedHeader([...ir.dropped, ...emitted.dropped]),
        customTools: customToolsOf(ir.value),
      });
      kept.push(t);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      failure = err;
      ctx.steps.push(`${t.label} skipped (cannot translate: ${err.message})`);
    }
  }
  if (kept.length === 0 && failure) {
    return invalid('translation_unsupported', failure.message, failure.param ?? undefined);
  }
  return kept;
}

function bodyFor(ctx: RequestContext, candidate: Candidate): Buffer {
  const model = candidate.target.model;
  const translated = translatedFor(ctx, candidate);
  if (translated) return Buffer.from(JSON.stringify({ ...translated.json, model }));
  // Pass the client's bytes through untouched unless the upstream knows the model by another
  // name (combos, `provider/model`); then only the model's bytes change, unless the byte-level
  // edit cannot be shown safe (see model-rewrite.ts).
  if (model === ctx.model) return ctx.raw;
  return (
    rewriteTopLevelModel(ctx.raw, model, true) ??
    Buffer.from(JSON.stringify({ ...bodyOf(ctx), model }))
  );
}

const WIRE_PATHS: Record<WireFormat, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/chat/completions',
  'openai-responses': '/responses',
};

function upstreamPathFor(ctx: RequestContext, candidate: Candidate): string {
  const translated = translatedFor(ctx, candidate);
  // A translated request goes to the other API's own path; the client's query is for its API.
  if (translated) return WIRE_PATHS[translated.wire];
  // The query passes through too: Claude Code sends `/v1/messages?beta=true`.
  return upstreamPath(candidate.target.provider.format, ctx.endpoint.path) + ctx.search;
}

// A provider's own timeouts over the settings, merged once per provider and settings change.
const mergedTimeouts = new WeakMap<
  Candidate['target']['provider'],
  { base: Readonly<UpstreamTimeouts>; merged: Readonly<UpstreamTimeouts> }
>();

function timeoutsFor(candidate: Candidate, deps: PipelineDeps): Readonly<UpstreamTimeouts> {
  const base = deps.timeouts();
  const provider = candidate.target.provider;
  const known = mergedTimeouts.get(provider);
  if (known?.base === base) return known.merged;
  const merged = { ...base, ...provider.timeouts };
  mergedTimeouts.set(provider, { base, merged });
  return merged;
}

/** A target routing passed over, for `diagnostics.excluded` and the decision header. */
interface Excluded {
  target: string;
  reason: string;
  retryAfterMs: number | null;
  /** For a cooling connection: the error type that cooled it (only rate limits are waited for). */
  errorType: string | null;
}

/** The latest upstream error answer, kept while failover goes on: the client gets it if nothing serves. */
interface HeldError {
  candidate: Candidate;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  cls: Classification;
}

const RETRY_AFTER_MIN_MS = 1_000;
/** Fresh starts after a watchdog trip before any byte reached the client, per request. */
const WATCHDOG_RETRIES = 2;
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * One request's way through its candidates (stage 3): rounds over them in order, each attempt
 * gated by flow control and the breaker, failover while nothing has reached the client, then
 * the answer or the error that explains why there is none. A class rather than a function with
 * helpers inside: its state is one object, not a context and ten closures made per request.
 */
class Dispatch {
  private readonly gate: ResilienceManager;
  private readonly flow: FlowControl;
  private readonly budgetEnd: number;
  private readonly session: string | null;
  private readonly queue: Candidate[];
  private excluded: Excluded[] = [];
  private attempted = 0;
  private fallbackAdded = false;
  private lastNetwork: GatewayError | null = null;
  private held: HeldError | null = null;
  private queueRejection: QueueRejection | null = null;
  /** Why the request could not be put in a candidate's format, when that was the obstacle. */
  private untranslatable: GatewayError | null = null;
  private waits = 0;
  private waited = 0;
  private watchdogRetries = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    candidates: readonly Candidate[],
    private readonly catalog: Catalog,
    private readonly deps: PipelineDeps,
  ) {
    this.gate = deps.resilience;
    this.flow = deps.flow;
    this.budgetEnd = ctx.started + deps.failoverBudgetMs();
    this.session = sessionIdOf(req.headers);
    this.queue = this.byPreference(candidates, this.session);
  }

  async run(): Promise<void> {
    // Rounds: one pass over the candidates each (inline rather than a helper: one suspended
    // async frame less for every open stream).
    for (;;) {
      for (let i = 0; i < this.queue.length || (!this.fallbackAdded && this.addFallback()); i++) {
        const candidate = this.queue[i]!;
        if (this.ctx.clientGone) return markClientAbort(this.ctx);
        const label = `${candidate.target.label}@${candidate.connection.id}`;
        const now = this.ctx.now();
        if (now >= this.budgetEnd) {
          this.ctx.steps.push(`failover budget of ${this.deps.failoverBudgetMs()} ms used up`);
          break;
        }
        const exclusion = this.gate.exclusion(candidate, now);
        if (exclusion) {
          this.skip(
            label,
            exclusion.reason,
            exclusion.retryAfterMs,
            exclusion.detail,
            exclusion.errorType ?? null,
          );
          continue;
        }
        const translated =
          wireFor(this.ctx, candidate) === null ? null : translateFor(this.ctx, [candidate.target]);
        if (translated && 'status' in translated) {
          this.untranslatable = translated;
          this.excluded.push({
            target: label,
            reason: 'untranslatable',
            retryAfterMs: null,
            errorType: null,
          });
          continue;
        }
        const outcome = await this.attempt(candidate, label, now);
        if (outcome === 'done') return;
        // The throughput watchdog cut a stream before any byte reached the client: same again.
        if (outcome === 'retry') i--;
      }
      if (this.ctx.clientGone) return;
      // Cooldown-aware retry: a short rate-limit cooldown is waited out instead of failing.
      const waitMs = this.cooldownWait();
      if (waitMs === null) break;
      this.ctx.steps.push(`waited ${Math.ceil(waitMs / 1000)} s for a rate-limit cooldown`);
      this.waits++;
      this.waited += waitMs;
      await this.sleepUnlessGone(waitMs);
      if (this.ctx.clientGone) return markClientAbort(this.ctx);
      this.excluded = [];
      this.held = null;
      this.lastNetwork = null;
      this.queueRejection = null;
    }

    if (this.held) return relayError(this.ctx, this.res, this.held, this.catalog);
    if (this.lastNetwork) return fail(this.ctx, this.res, this.lastNetwork);
    if (this.queueRejection && this.attempted === 0)
      return fail(this.ctx, this.res, this.queueError(this.queueRejection));
    if (this.untranslatable && this.excluded.every((e) => e.reason === 'untranslatable')) {
      return fail(this.ctx, this.res, this.untranslatable);
    }
    return fail(this.ctx, this.res, this.allExcluded());
  }

  /** One upstream attempt: flow-control slot, breaker admission, the call, its outcome. */
  private async attempt(
    candidate: Candidate,
    label: string,
    now: number,
  ): Promise<'done' | 'next' | 'retry'> {
    const timeouts = timeoutsFor(candidate, this.deps);
    const attemptMs = Math.min(timeouts.totalMs, this.budgetEnd - now);
    const cancel = new AttemptCancel();
    this.ctx.abortAttempt = () => cancel.abort(new ClientAbortError());
    let hold: FlowHold | null = null;
    let admission: { ok: true; probe: boolean; ticket: number | null } | null = null;
    let deadline: NodeJS.Timeout | null = null;
    let settled = false;
    const connId = candidate.connection.id;
    try {
      try {
        hold = await this.flow.hold(
          candidate.target.provider.id,
          candidate.connection,
          attemptMs,
          cancel,
          () => cancel.abort(new ExecutionExpiredError()),
        );
      } catch (err) {
        if (!(err instanceof QueueRejection)) throw err;
        if (this.ctx.clientGone) {
          markClientAbort(this.ctx);
          return 'done';
        }
        this.queueRejection = err;
        this.deps.events?.({ code: err.code, candidate, message: err.message });
        this.skip(label, err.code, err.retryAfterMs, err.message, null);
        return 'next';
      }
      if (this.ctx.clientGone) {
        markClientAbort(this.ctx);
        return 'done';
      }
      // Admission comes after any wait, so a HALF_OPEN probe is not held while queued.
      const startedAt = this.ctx.now();
      const remaining = Math.max(1, Math.min(attemptMs, this.budgetEnd - startedAt));
      const admitted = this.gate.admit(candidate, startedAt, startedAt + remaining);
      if (!admitted.ok) {
        const ex = admitted.exclusion;
        this.skip(label, ex.reason, ex.retryAfterMs, ex.detail, null);
        return 'next';
      }
      admission = admitted;
      const probe = admitted.probe;
      this.attempted++;
      this.ctx.served = candidate;
      deadline = setTimeout(() => cancel.abort(new DeadlineError(remaining)), remaining);
      this.deps.inFlight.set(connId, (this.deps.inFlight.get(connId) ?? 0) + 1);
      let upstream: UpstreamResponse;
      let opening: StreamOpeningError | null = null;
      try {
        const secret = this.catalog.secretOf(candidate.connection);
        // The body is made inside, not captured: this attempt's frame lives as long as the
        // stream, and should not keep a copy of the request body alive with it.
        const send = (extra: Record<string, string>): Promise<UpstreamResponse> => {
          if (cancel.reason) return Promise.reject(cancel.reason);
          const body = bodyFor(this.ctx, candidate);
          const exchange = this.deps.pools.request({
            provider: candidate.target.provider,
            path: upstreamPathFor(this.ctx, candidate),
            headers: upstreamHeaders(
              this.req.headers,
              candidate.target.provider,
              secret,
              body.length,
              this.ctx.stream,
              extra,
            ),
            body,
            timeouts: { ...timeouts, totalMs: remaining },
          });
          cancel.bind(exchange);
          return exchange.response;
        };
        // Anthropic subscription accounts (§2): a 5-hour limit 429 is answered on this
        // connection (limit reset, low-priority lane) before classification and cooldown see it.
        upstream = this.deps.subscription?.applies(candidate)
          ? await this.deps.subscription.send(
              candidate,
              secret,
              startedAt + remaining,
              cancel.signal,
              send,
            )
          : await send(NO_EXTRA_HEADERS);
        if (isEventStream(upstream)) opening = await openingErrorOf(upstream);
      } catch (err) {
        if (cancel.reason instanceof ExecutionExpiredError) {
          settled = true;
          return this.executionExpired(candidate);
        }
        const failure = classifyAttemptError(err, cancel);
        if (failure.kind === 'client_abort') {
          markClientAbort(this.ctx);
          return 'done';
        }
        settled = true;
        this.gate.onNetworkFailure(candidate, probe, this.ctx.now(), failure.message);
        this.ctx.steps.push(`${label} failed (${failure.message})`);
        this.ctx.errorClass = failure.errorClass;
        this.ctx.errorMessage = `${candidate.target.label}: ${failure.message}`;
        const timeout = failure.errorClass.startsWith('timeout');
        this.lastNetwork = {
          status: timeout ? 504 : 502,
          kind: timeout ? 'timeout' : 'upstream',
          code: timeout ? 'upstream_timeout' : 'upstream_unreachable',
          message: `no upstream could answer: ${this.ctx.steps.filter((s) => s.includes('failed')).join('; ')}`,
        };
        this.held = null;
        return 'next';
      }
      this.flow.queues.learn(
        candidate.target.provider.id,
        connId,
        candidate.connection.options?.rateLimit ?? NO_RATE_LIMIT,
        upstream.headers,
      );
      this.ctx.egressIp = this.deps.pools.egressOf(candidate.target.provider.id);
      if (this.ctx.egressIp) this.gate.noteEgress(connId, this.ctx.egressIp, startedAt);
      // An error as the first event of a 200 stream is handled like that error's status.
      const status = opening?.status ?? upstream.statusCode;
      if (status >= 400) {
        const raw = opening?.raw ?? (await readBounded(upstream.body, ERROR_BODY_LIMIT));
        if (opening) upstream.body.destroy();
        const cls = classify(
          {
            provider: candidate.target.provider.id,
            status,
            headers: upstream.headers,
            bodyText: raw.toString('utf8'),
          },
          this.deps.errorRules(),
          this.ctx.now(),
        );
        settled = true;
        this.gate.onUpstreamError(
          candidate,
          probe,
          cls,
          {
            status,
            message: upstreamMessageOf(raw, status, this.catalog),
            requestStartedAt: startedAt,
            egressIp: this.ctx.egressIp,
          },
          this.ctx.now(),
        );
        const restated = cls.restatedBy ? ` restated to ${cls.status}` : '';
        const how = opening ? `error event opening a 200 stream, as ${status}` : `HTTP ${status}`;
        this.ctx.steps.push(`${label} failed (${how}${restated}, ${cls.reason})`);
        this.held = { candidate, status, headers: upstream.headers, raw, cls };
        this.lastNetwork = null;
        // Nothing has reached the client yet, so another candidate can still serve it.
        if (cls.failover) return 'next';
        relayError(this.ctx, this.res, this.held, this.catalog);
        return 'done';
      }
      this.ctx.steps.push(
        `${label} served${this.attempted > 1 ? ` (attempt ${this.attempted})` : ''}`,
      );
      // Earlier attempts' failures stay in the decision; the outcome is this attempt's.
      this.ctx.errorClass = null;
      this.ctx.errorMessage = null;
      const relayed = await relay(this.ctx, this.res, upstream, cancel, candidate);
      // A watchdog trip is Breakwater's own stream handling (§1): neither a provider failure nor
      // a success, so the admission is only released (in finally) and no pin is made.
      if (relayed === 'retry' || this.ctx.errorClass === WATCHDOG_ERROR_CLASS) {
        return this.watchdogTripped(label, relayed === 'retry');
      }
      settled = true;
      if (brokeOffUpstream(this.ctx.errorClass as string | null)) {
        this.gate.onNetworkFailure(
          candidate,
          probe,
          this.ctx.now(),
          this.ctx.errorMessage ?? 'stream broke off',
        );
      } else {
        this.gate.onSuccess(candidate, probe, this.ctx.now());
        if (this.session) this.flow.pin(this.session, connId, this.ctx.now());
      }
      return 'done';
    } finally {
      if (admission && !settled) this.gate.release(candidate, admission.ticket);
      if (deadline) {
        clearTimeout(deadline);
        this.deps.inFlight.set(connId, (this.deps.inFlight.get(connId) ?? 1) - 1);
      }
      hold?.release();
      this.ctx.abortAttempt = null;
    }
  }

  /**
   * After a watchdog trip: once bytes reached the client the stream already ended with an error
   * event; before that, the request starts again on the same connection, at most
   * WATCHDOG_RETRIES times, and then moves on like after a network failure.
   */
  private watchdogTripped(label: string, beforeCommit: boolean): 'done' | 'next' | 'retry' {
    this.ctx.steps.push(`${label} cut by the throughput watchdog (${this.ctx.errorMessage})`);
    if (!beforeCommit) return 'done';
    this.ctx.ttfb = null;
    if (this.watchdogRetries < WATCHDOG_RETRIES) {
      this.watchdogRetries++;
      return 'retry';
    }
    this.held = null;
    this.lastNetwork = {
      status: 504,
      kind: 'timeout',
      code: 'upstream_throughput_too_low',
      message: `no upstream produced output fast enough: ${this.ctx.steps.filter((s) => s.includes('watchdog')).join('; ')}`,
    };
    return 'next';
  }

  private executionExpired(candidate: Candidate): 'done' {
    this.flow.queues.countRejection(candidate.target.provider.id, candidate.connection.id);
    fail(this.ctx, this.res, {
      status: 504,
      kind: 'timeout',
      code: 'RATE_LIMIT_EXECUTION_TIMEOUT',
      message: `the request ran longer than the queue's execution limit for ${candidate.target.provider.id}/${candidate.connection.id} (rateLimit.executionMaxWaitMs)`,
    });
    return 'done';
  }

  /**
   * Candidates in the order to try: the session's pinned connection first (affinity), then
   * priority order with connections at their `maxConcurrent` moved behind the others of the
   * same target (a preference, never a refusal).
   */
  private byPreference(list: readonly Candidate[], sessionId: string | null): Candidate[] {
    const pinned = sessionId ? this.flow.pinned(sessionId, this.ctx.now()) : null;
    // Always a copy: `list` may be a route shared by every request of this model, and the
    // emergency fallback is pushed onto the queue this returns.
    if (pinned === null && grouped(list) && !list.some((c) => this.flow.saturated(c.connection))) {
      return [...list];
    }
    const rank = (c: Candidate) => (pinned !== null && c.connection.id === pinned ? 0 : 1);
    const indexed = list.map((c, i) => ({
      c,
      i,
      saturated: this.flow.saturated(c.connection) ? 1 : 0,
    }));
    const targetOrder = new Map<string, number>();
    list.forEach((c, i) => {
      if (!targetOrder.has(c.target.label)) targetOrder.set(c.target.label, i);
    });
    indexed.sort(
      (a, b) =>
        rank(a.c) - rank(b.c) ||
        targetOrder.get(a.c.target.label)! - targetOrder.get(b.c.target.label)! ||
        a.saturated - b.saturated ||
        a.i - b.i,
    );
    if (pinned !== null && indexed[0] && rank(indexed[0].c) === 0)
      this.ctx.steps.push(`session pinned to ${pinned}`);
    return indexed.map((x) => x.c);
  }

  private skip(
    label: string,
    reason: string,
    retryAfterMs: number | null,
    detail: string,
    errorType: string | null,
  ): void {
    this.excluded.push({ target: label, reason, retryAfterMs, errorType });
    this.ctx.steps.push(`${label} skipped (${reason})`);
    this.deps.log.debug(`proxy: ${label} skipped: ${detail}`);
  }

  /**
   * How long to wait before dispatching again, or null to answer now. Only a short cooldown
   * caused by a rate limit is waited for: never quota exhaustion, auth or not-found.
   */
  private cooldownWait(): number | null {
    const s = this.deps.cooldownWait();
    if (!s.enabled || this.waits >= s.maxAttempts || this.attempted + this.excluded.length === 0)
      return null;
    if (this.lastNetwork) return null;
    const rateLimited = (e: Excluded) =>
      e.reason === 'unavailable' && e.errorType === 'rate_limit_exceeded';
    let waitMs: number;
    if (this.held) {
      if (this.held.cls.status !== 429 || this.held.cls.reason !== 'rate_limit_exceeded')
        return null;
      // Every other candidate was also out for a short rate limit, or tried and failed like this.
      if (!this.excluded.every(rateLimited)) return null;
      const timed = this.excluded.map((e) => e.retryAfterMs!).filter((ms) => ms > 0);
      const announced =
        this.gate.exclusion(this.held.candidate, this.ctx.now())?.retryAfterMs ?? null;
      const all = announced !== null ? [...timed, announced] : timed;
      if (all.length === 0) return null;
      waitMs = Math.min(...all);
    } else {
      if (this.excluded.length === 0 || !this.excluded.every(rateLimited)) return null;
      waitMs = Math.min(...this.excluded.map((e) => e.retryAfterMs!));
    }
    if (waitMs > s.maxWaitMs || this.waited + waitMs > s.budgetMs) return null;
    if (this.ctx.now() + waitMs >= this.budgetEnd) return null;
    return Math.max(1, waitMs);
  }

  private sleepUnlessGone(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.res.once('close', done);
    });
  }

  /** The emergency fallback joins once every other candidate was excluded or failed. */
  private addFallback(): boolean {
    this.fallbackAdded = true;
    const ref = this.deps.emergencyFallback();
    if (!ref) return false;
    const routed = routeModel(this.catalog, ref);
    if (routed.expansion === null) {
      this.deps.log.warn(`proxy: emergency fallback "${ref}" does not resolve; ignored`);
      return false;
    }
    const targets = translateFor(this.ctx, routed.resolution.targets);
    if ('status' in targets) return false;
    const extra = expandCandidates(targets).candidates.filter(
      (c) =>
        !this.queue.some(
          (q) => q.target.label === c.target.label && q.connection.id === c.connection.id,
        ) &&
        (this.deps.leases?.allows(this.ctx.lease ?? null, c, this.ctx.now()) ?? true),
    );
    if (extra.length === 0) return false;
    this.ctx.steps.push(`emergency fallback ${ref}`);
    this.queue.push(...extra);
    return true;
  }

  private queueError(r: QueueRejection): GatewayError {
    return {
      status: 429,
      kind: 'rate_limit',
      code: r.code,
      message: r.message,
      headers:
        r.retryAfterMs !== null
          ? { 'retry-after': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) }
          : {},
    };
  }

  private allExcluded(): GatewayError {
    const timed = this.excluded.filter((e) => e.retryAfterMs !== null);
    const diagnostics = {
      poolSize: this.queue.length,
      attempted: this.attempted,
      excluded: this.excluded.map((e) => ({
        target: e.target,
        reason: e.reason,
        retryAfterMs: e.retryAfterMs,
      })),
    };
    if (timed.length === 0) {
      return {
        status: 404,
        kind: 'not_found',
        code: 'no_executable_targets',
        message: `model "${this.ctx.model}" has no target that can be executed: ${this.excluded.map((e) => `${e.target} is ${e.reason}`).join('; ') || 'no targets'}`,
        extra: { diagnostics },
      };
    }
    const earliest = Math.min(...timed.map((e) => e.retryAfterMs!));
    const retryAfterMs = Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, earliest));
    this.deps.log.warn(
      `proxy: every target of "${this.ctx.model}" is cooling down: ${this.excluded
        .map(
          (e) =>
            `${e.target} ${e.reason}${e.retryAfterMs !== null ? ` ${Math.ceil(e.retryAfterMs / 1000)} s` : ' (needs an operator)'}`,
        )
        .join(', ')}`,
    );
    return {
      status: 503,
      kind: 'overloaded',
      code: 'all_targets_cooling_down',
      message: `every target of "${this.ctx.model}" is temporarily unavailable; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
      headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
      extra: { diagnostics },
    };
  }
}

const NO_BYTES = Buffer.alloc(0);

/**
 * The answer's head is out: no other candidate can serve this request any more, so the request
 * body in its forms (bytes, parsed, translated) is let go instead of being held for as long as
 * the stream runs; only undici keeps the copy it sent until the answer completes. With agent
 * requests of 50-200 KB that is most of a stream's memory.
 */
function committed(ctx: RequestContext): void {
  ctx.raw = NO_BYTES;
  ctx.parsed = {};
  if (ctx.translated) for (const t of ctx.translated.values()) t.json = {};
}

/** True when each target's candidates are adjacent, so priority order needs no regrouping. */
function grouped(list: readonly Candidate[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const label = list[i]!.target.label;
    if (label === list[i - 1]!.target.label) continue;
    for (let j = 0; j < i - 1; j++) if (list[j]!.target.label === label) return false;
  }
  return true;
}

/**
 * The upstream broke its answer after the head (reset, stall, an error event mid-stream, a body
 * that is not what it claimed): a provider failure, not a success.
 */
function brokeOffUpstream(errorClass: string | null): boolean {
  return (
    errorClass !== null &&
    (errorClass.startsWith('stream_') ||
      errorClass === 'upstream_stream_error' ||
      errorClass === 'upstream_invalid_response')
  );
}

const NO_EXTRA_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function isEventStream(upstream: UpstreamResponse): boolean {
  return String(upstream.headers['content-type'] ?? '').includes('text/event-stream');
}

/** A 200 event stream's opening error (RESILIENCE.md §7, a Breakwater addition), if any. */
async function openingErrorOf(upstream: UpstreamResponse): Promise<StreamOpeningError | null> {
  if (upstream.statusCode !== 200) return null;
  return peekOpeningError(upstream.body);
}

/** Abort reason when the request queue's execution limit ends an attempt. */
class ExecutionExpiredError extends Error {
  constructor() {
    super('execution limit of the request queue reached');
  }
}

/** The upstream's own error message, scrubbed, for logs, events and the dashboard. */
function upstreamMessageOf(raw: Buffer, status: number, catalog: Catalog): string {
  return readUpstreamError(raw, catalog.secrets()).message || `HTTP ${status} with an empty body`;
}

function markClientAbort(ctx: RequestContext): void {
  ctx.status = 499;
  ctx.errorClass = 'client_abort';
  ctx.errorMessage = 'client disconnected before the answer was complete';
}

/** Adds the routing decision headers to `out` (built once per answer, never copied). */
function addDecisionHeaders(
  out: OutgoingHttpHeaders,
  ctx: RequestContext,
  candidate: Candidate,
): OutgoingHttpHeaders {
  out['x-breakwater-decision'] = ctx.steps.join('; ');
  out['x-breakwater-connection'] = candidate.connection.id;
  const translated = translatedFor(ctx, candidate);
  if (translated) {
    out['x-breakwater-translated'] = `${ctx.endpoint.format} -> ${translated.wire}`;
    if (translated.dropped) out['x-breakwater-dropped'] = translated.dropped;
  }
  return out;
}

/**
 * Answers with an upstream error in the client's format, with the status as restated by the
 * error rules (e.g. a quota 403 becomes a 429 with Retry-After).
 */
function relayError(
  ctx: RequestContext,
  res: ServerResponse,
  held: HeldError,
  catalog: Catalog,
): void {
  const { candidate, cls, raw } = held;
  const status = cls.status;
  const relayed = clientErrorFromUpstream(
    ctx.endpoint.format,
    status,
    raw,
    candidate.target.provider.id,
    catalog.secrets(),
  );
  const { message } = relayed;
  const body = translatedError(ctx, candidate, status, raw, message) ?? relayed.body;
  ctx.served = candidate;
  ctx.status = status;
  ctx.errorClass = cls.reason;
  ctx.errorMessage = message;
  if (ctx.clientGone) return;
  const headers = clientResponseHeaders(held.headers);
  if (cls.clientRetryAfterMs !== null && headers['retry-after'] === undefined) {
    headers['retry-after'] = String(Math.ceil(cls.clientRetryAfterMs / 1000));
  }
  addDecisionHeaders(headers, ctx, candidate);
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
  ctx.bytesOut = Buffer.byteLength(body);
}

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function relay(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: UpstreamResponse,
  signal: CancelState,
  candidate: Candidate,
): Promise<'retry' | undefined> {
  const translated = translatedFor(ctx, candidate);
  if (translated) return relayTranslated(ctx, res, upstream, signal, candidate, translated.wire);
  return new PassThroughRelay(ctx, res, upstream, signal, candidate).done;
}

/**
 * Relays an answer in the client's own format: each chunk is written as it arrives, the
 * upstream socket paused while the client's is full. One object per answer and no promise per
 * chunk: it reads the body as a `BodyReader`, and `done` settles when the answer has ended,
 * broken off or been cut by the watchdog ('retry' when that happened before any byte went out).
 */
class PassThroughRelay implements BodyReader {
  readonly done: Promise<'retry' | undefined>;
  private settle!: (outcome: 'retry' | undefined) => void;
  private crash!: (err: unknown) => void;
  private readonly isSse: boolean;
  /** Until the head is written; let go after. */
  private headers: OutgoingHttpHeaders | null;
  private readonly watch: StreamWatch | null;
  /** With the watchdog on, the head and the events before the first useful one wait here (§6). */
  private pending: Buffer[] | null;
  private pendingBytes = 0;
  private readonly observer: SseUsageObserver | null;
  /** A whole answer's bytes, read for its usage at the end (up to NON_STREAM_USAGE_LIMIT). */
  private kept: Buffer[] = [];
  private keptBytes = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly res: ServerResponse,
    private readonly upstream: UpstreamResponse,
    private readonly signal: CancelState,
    private readonly candidate: Candidate,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.crash = reject;
    });
    const isSse = isEventStream(upstream);
    this.isSse = isSse;
    const headers = clientResponseHeaders(upstream.headers);
    const contentLength = upstream.headers['content-length'];
    if (!isSse && typeof contentLength === 'string') headers['content-length'] = contentLength;
    if (isSse) {
      headers['cache-control'] = 'no-cache';
      headers['x-accel-buffering'] = 'no';
    }
    this.headers = headers;
    ctx.status = upstream.statusCode;
    this.watch = isSse ? watchFor(ctx, ctx.endpoint.format, upstream) : null;
    this.pending = this.watch ? [] : null;
    this.observer = isSse ? new SseUsageObserver() : null;
    if (!this.watch) this.open();
    upstream.body.read(this);
    // The head leaves with the first write: the opening event read ahead by the peek, or a
    // whole body, is written just above. A stream with nothing to show yet still gets its head
    // now, so its client is not kept waiting for the first token to see it. (One write instead of
    // two: on a virtual machine each write that wakes the client costs tenths of a millisecond.)
    if (this.isSse && this.headers === null && ctx.bytesOut === 0) res.flushHeaders();
  }

  private open(): void {
    this.res.writeHead(
      this.upstream.statusCode,
      addDecisionHeaders(this.headers!, this.ctx, this.candidate),
    );
    this.headers = null;
    committed(this.ctx);
  }

  /** Writes the head and hands back what was held, joined. */
  private release(): Buffer {
    this.open();
    const out = Buffer.concat(this.pending ?? [], this.pendingBytes);
    this.pending = null;
    return out;
  }

  data(chunk: Buffer): boolean {
    const ctx = this.ctx;
    let buf = chunk;
    if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
    if (this.observer) this.observer.push(buf);
    else if (this.keptBytes < NON_STREAM_USAGE_LIMIT) {
      this.kept.push(buf);
      this.keptBytes += buf.length;
    }
    if (this.watch) {
      this.watch.push(buf);
      if (this.pending) {
        this.pending.push(buf);
        this.pendingBytes += buf.length;
        if (!this.watch.committed && this.pendingBytes < HOLD_LIMIT_BYTES) return true;
        buf = this.release();
      }
    }
    ctx.bytesOut += buf.length;
    if (this.res.write(buf)) return true;
    // A client gone meanwhile is handled by the request's close listener, which cancels the
    // call; the body then fails and `error` ends the relay.
    this.res.once('drain', () => this.upstream.body.resume());
    return false;
  }

  end(): void {
    try {
      this.watch?.stop();
      const { ctx, res } = this;
      if (ctx.clientGone) {
        markClientAbort(ctx);
        this.settle(undefined);
        return;
      }
      if (this.pending) {
        // The stream ended before any useful event: what it sent goes out as it was.
        const held = this.release();
        ctx.bytesOut += held.length;
        res.end(held);
      } else res.end();
      if (this.observer) ctx.usage = this.observer.usage;
      else if (this.keptBytes > 0 && this.keptBytes < NON_STREAM_USAGE_LIMIT) {
        const kept = this.kept;
        mergeUsage(ctx.usage, usageOfBody(kept.length === 1 ? kept[0]! : Buffer.concat(kept)));
      }
      this.kept = [];
      this.settle(undefined);
    } catch (err) {
      this.crash(err);
    }
  }

  error(err: Error): void {
    try {
      this.settle(this.broke(err));
    } catch (thrown) {
      this.crash(thrown);
    }
  }

  private broke(err: Error): 'retry' | undefined {
    this.watch?.stop();
    const { ctx, res, candidate } = this;
    if (err instanceof ThroughputTripError && !ctx.clientGone) {
      return watchdogEnding(ctx, res, ctx.endpoint.format, candidate, err, this.pending !== null);
    }
    if (this.pending) {
      const held = this.release();
      ctx.bytesOut += held.length;
      res.write(held);
    }
    const failure = classifyAttemptError(err, this.signal);
    if (failure.kind === 'client_abort' || ctx.clientGone) {
      markClientAbort(ctx);
      return undefined;
    }
    ctx.errorClass = `stream_${failure.errorClass}`;
    ctx.errorMessage = `${candidate.target.label}: ${failure.message} after ${ctx.bytesOut} bytes`;
    if (this.isSse) {
      // The status line is gone; a well-formed error event is the only honest ending.
      res.end(
        streamErrorEvent(ctx.endpoint.format, {
          status: 502,
          kind: 'upstream',
          code: 'upstream_stream_interrupted',
          message: `the upstream stream from ${candidate.target.label} broke off: ${failure.message}`,
        }),
      );
    } else {
      res.destroy();
    }
    return undefined;
  }
}

/** The relay's watchdog for one upstream stream, when the watchdog is switched on. */
function watchFor(
  ctx: RequestContext,
  format: WireFormat,
  upstream: UpstreamResponse,
): StreamWatch | null {
  return ctx.watchdog ? new StreamWatch(format, ctx.watchdog, ctx.now, upstream.body) : null;
}

/**
 * A watchdog trip: before any byte reached the client, nothing is written and the caller starts
 * again ('retry'); after, the stream ends with an error event in the client's format.
 */
function watchdogEnding(
  ctx: RequestContext,
  res: ServerResponse,
  client: WireFormat,
  candidate: Candidate,
  trip: ThroughputTripError,
  beforeCommit: boolean,
): 'retry' | undefined {
  ctx.errorClass = WATCHDOG_ERROR_CLASS;
  ctx.errorMessage = `${candidate.target.label}: ${trip.message}`;
  if (beforeCommit) return 'retry';
  res.end(
    streamErrorEvent(client, {
      status: 504,
      kind: 'timeout',
      code: 'upstream_throughput_too_low',
      message: `the stream from ${candidate.target.label} was cut: ${trip.message}`,
    }),
  );
  return undefined;
}

const TRANSLATE_BODY_LIMIT = 64 * 1024 * 1024;

function setUsage(ctx: RequestContext, usage: IrUsage): void {
  ctx.usage = { inputTokens: usage.input, outputTokens: usage.output, cachedTokens: usage.cached };
}

/** An upstream error in another format, rewritten in the client's; null to use the default. */
function translatedError(
  ctx: RequestContext,
  candidate: Candidate,
  status: number,
  raw: Buffer,
  redactedMessage: string,
): string | null {
  const translated = translatedFor(ctx, candidate);
  if (!translated) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  const err = parseError(translated.wire, status, parsed);
  if (!err) return null;
  return JSON.stringify(
    errorBody(ctx.endpoint.format, {
      status,
      kind: err.kind as ErrorKind,
      code: err.code,
      message: redactedMessage,
    }),
  );
}

/**
 * Relays an answer in another format: a whole body is converted at once; a stream is decoded
 * and converted event by event, each client event written as soon as its upstream event arrived.
 */
async function relayTranslated(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: UpstreamResponse,
  signal: CancelState,
  candidate: Candidate,
  wire: WireFormat,
): Promise<'retry' | undefined> {
  const client = ctx.endpoint.format;
  const isSse = isEventStream(upstream);
  const headers = clientResponseHeaders(upstream.headers);
  delete headers['content-type'];
  const customTools = translatedFor(ctx, candidate)?.customTools;
  const writerOpts = {
    nowMs: ctx.now(),
    includeUsage:
      (bodyOf(ctx).stream_options as { include_usage?: unknown } | undefined)?.include_usage ===
      true,
    ...(customTools ? { customTools } : {}),
  };
  ctx.status = upstream.statusCode;
  const broke = (err: unknown): boolean => {
    const failure = classifyAttemptError(err, signal);
    if (failure.kind === 'client_abort' || ctx.clientGone) {
      markClientAbort(ctx);
      return false;
    }
    ctx.errorClass = `stream_${failure.errorClass}`;
    ctx.errorMessage = `${candidate.target.label}: ${failure.message} after ${ctx.bytesOut} bytes`;
    return true;
  };
  const readWhole = async (): Promise<Record<string, unknown> | null> => {
    const raw = await readBounded(upstream.body, TRANSLATE_BODY_LIMIT);
    if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      return isJsonObject(parsed) ? parsed : null;
    } catch {
      return null;
    }
  };
  const invalidAnswer: GatewayError = {
    status: 502,
    kind: 'upstream',
    code: 'upstream_invalid_response',
    message: `${candidate.target.label} answered with a body that is not a ${wire} response`,
  };

  if (!ctx.stream) {
    let parsed: Record<string, unknown> | null;
    try {
      parsed = isSse ? null : await readWhole();
    } catch (err) {
      if (broke(err)) {
        fail(ctx, res, {
          status: 502,
          kind: 'upstream',
          code: 'upstream_stream_interrupted',
          message: `the answer from ${candidate.target.label} broke off: ${ctx.errorMessage}`,
        });
      }
      return;
    }
    if (!parsed) {
      ctx.errorClass = 'upstream_invalid_response';
      fail(ctx, res, invalidAnswer);
      return;
    }
    const ir = parseResponse(wire, parsed);
    setUsage(ctx, ir.usage);
    const body = JSON.stringify(emitResponse(client, ir, ctx.now(), customTools));
    if (ctx.clientGone) {
      markClientAbort(ctx);
      return;
    }
    addDecisionHeaders(headers, ctx, candidate);
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(upstream.statusCode, headers);
    res.end(body);
    ctx.bytesOut = Buffer.byteLength(body);
    return;
  }

  const open = () => {
    addDecisionHeaders(headers, ctx, candidate);
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    res.writeHead(upstream.statusCode, headers);
    res.flushHeaders();
    committed(ctx);
  };
  const watch = isSse ? watchFor(ctx, wire, upstream) : null;
  // With the watchdog on, the head and the events before the first useful one wait here (§6).
  let pending: string | null = watch ? '' : null;
  if (!watch) open();
  const send = async (text: string): Promise<void> => {
    if (pending !== null) {
      pending += text;
      if (!watch?.committed && pending.length < HOLD_LIMIT_BYTES) return;
      open();
      text = pending;
      pending = null;
    }
    if (text === '') return;
    ctx.bytesOut += Buffer.byteLength(text);
    if (!res.write(text)) await waitForDrain(res);
  };
  /** Sends what was held back when the stream ends or breaks before a useful event. */
  const release = async (): Promise<void> => {
    if (pending === null) return;
    open();
    const text = pending;
    pending = null;
    await send(text);
  };
  try {
    if (!isSse) {
      // Asked to stream, the upstream answered in one piece: replay it as a stream.
      const parsed = await readWhole();
      if (!parsed) {
        ctx.errorClass = 'upstream_invalid_response';
        ctx.errorMessage = invalidAnswer.message;
        res.end(streamErrorEvent(client, invalidAnswer));
        return;
      }
      const replay = responseAsStream(wire, client, parsed, writerOpts);
      setUsage(ctx, replay.usage);
      await send(replay.text);
      if (!ctx.clientGone) res.end();
      else markClientAbort(ctx);
      return;
    }
    const translator = createStreamTranslator(wire, client, writerOpts);
    for await (const chunk of upstream.body) {
      if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
      watch?.push(chunk as Buffer);
      await send(translator.push(chunk as Buffer));
      if (ctx.clientGone) break;
    }
    if (ctx.clientGone) {
      markClientAbort(ctx);
      return;
    }
    await release();
    const tail = translator.end();
    setUsage(ctx, translator.usage);
    if (translator.errored) {
      ctx.errorClass = 'upstream_stream_error';
      ctx.errorMessage = `${candidate.target.label} reported an error inside its stream`;
    }
    ctx.bytesOut += Buffer.byteLength(tail);
    res.end(tail);
  } catch (err) {
    if (err instanceof ThroughputTripError && !ctx.clientGone) {
      return watchdogEnding(ctx, res, client, candidate, err, pending !== null);
    }
    if (!broke(err)) return;
    await release();
    res.end(
      streamErrorEvent(client, {
        status: 502,
        kind: 'upstream',
        code: 'upstream_stream_interrupted',
        message: `the upstream stream from ${candidate.target.label} broke off: ${ctx.errorMessage}`,
      }),
    );
  } finally {
    watch?.stop();
    if (!upstream.body.destroyed) upstream.body.destroy();
  }
}

/**
 * `count_tokens` for a model whose first target is not an Anthropic provider: no such endpoint
 * upstream, so the gateway estimates and says so (`X-Breakwater-Token-Count: estimate`).
 */
function answerTokenEstimate(ctx: RequestContext, res: ServerResponse, candidate: Candidate): void {
  const tokens = estimateInputTokens(parseRequest('anthropic', bodyOf(ctx)).value);
  const body = JSON.stringify({ input_tokens: tokens });
  ctx.served = candidate;
  ctx.status = 200;
  ctx.usage = { inputTokens: tokens, outputTokens: null, cachedTokens: null };
  ctx.steps.push(`${candidate.target.label} estimated (no count_tokens upstream)`);
  if (ctx.clientGone) return;
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-breakwater-decision': ctx.steps.join('; '),
    'x-breakwater-token-count': 'estimate',
  });
  res.end(body);
  ctx.bytesOut = Buffer.byteLength(body);
}

function fail(ctx: RequestContext, res: ServerResponse, err: GatewayError): void {
  ctx.status = err.status;
  ctx.errorClass ??= err.code;
  ctx.errorMessage ??= err.message;
  if (ctx.clientGone) return;
  const decision: Record<string, string> =
    ctx.steps.length > 0 ? { 'x-breakwater-decision': ctx.steps.join('; ') } : {};
  sendError(res, ctx.endpoint.format, { ...err, headers: { ...err.headers, ...decision } });
}

function record(ctx: RequestContext, deps: PipelineDeps): void {
  const candidate = ctx.served;
  deps.record({
    at: ctx.started,
    clientFormat: ctx.endpoint.format,
    modelRequested: ctx.model,
    target: candidate?.target.label ?? null,
    provider: candidate?.target.provider.id ?? null,
    connection: candidate?.connection.id ?? null,
    status: ctx.status || 500,
    latencyMs: deps.clock.now() - ctx.started,
    ttfbMs: ctx.ttfb,
    stream: ctx.stream,
    bytesIn: ctx.bytesIn,
    bytesOut: ctx.bytesOut,
    inputTokens: ctx.usage.inputTokens,
    outputTokens: ctx.usage.outputTokens,
    cachedTokens: ctx.usage.cachedTokens,
    errorClass: ctx.errorClass,
    errorMessage: ctx.errorMessage ? redactSecrets(ctx.errorMessage).slice(0, 500) : null,
    decision: ctx.steps.length > 0 ? ctx.steps.join('; ') : null,
    egressIp: ctx.egressIp,
  });
}
