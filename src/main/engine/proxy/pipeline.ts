import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RequestLogEntry, UpstreamTimeouts } from '../../../shared/contract';
import type { Catalog } from '../catalog';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import { redactSecrets } from '../logger';
import {
  type Candidate,
  expandCandidates,
  providerFormatFor,
  resolveModel,
} from '../routing/resolve';
import { ClientAbortError, classifyAttemptError, DeadlineError, readBounded } from './attempt';
import { type GatewayError, sendError, streamErrorEvent } from './client-errors';
import type { Endpoint } from './endpoints';
import { clientResponseHeaders, upstreamHeaders } from './headers';
import { type UpstreamPools, upstreamPath } from './upstream';
import { clientErrorFromUpstream } from './upstream-errors';
import { emptyUsage, mergeUsage, SseUsageObserver, type Usage, usageOf } from './usage';

export interface PipelineDeps {
  catalog(): Catalog;
  timeouts(): UpstreamTimeouts;
  pools: UpstreamPools;
  clock: Clock;
  log: Logger;
  /** Upstream attempts currently open, per connection (for the snapshot). */
  inFlight: Map<string, number>;
  /** Called once per request with its log row (batched to SQLite and emitted as an event). */
  record(entry: Omit<RequestLogEntry, 'id'>): void;
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
  body: Record<string, unknown>;
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
 *   2. route     — model → targets (combo, provider/model, bare model) → candidates, filtered
 *                  to the providers that speak the client's format
 *   3. dispatch  — candidates in priority order; a network error or 5xx before any byte
 *                  reached the client moves on to the next candidate
 *   4. relay     — status, headers and body back to the client with backpressure
 *   5. record    — exactly one log row per request, whatever happened above
 * Resilience gates (breaker, cooldown, lockout, queue) slot in between route and dispatch and
 * see each attempt's outcome after it.
 */
export async function handleProxyRequest(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: Endpoint,
  raw: Buffer,
  deps: PipelineDeps,
): Promise<void> {
  const ctx: RequestContext = {
    endpoint,
    search: searchOf(req.url),
    now: () => deps.clock.now(),
    started: deps.clock.now(),
    bytesIn: raw.length,
    model: '',
    stream: false,
    body: {},
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
  };
  res.once('close', () => {
    if (!res.writableFinished) ctx.clientGone = true;
  });
  try {
    const parseError = parse(ctx);
    if (parseError) return fail(ctx, res, parseError);
    const catalog = deps.catalog();
    const routed = route(ctx, catalog);
    if ('status' in routed) return fail(ctx, res, routed);
    await dispatch(ctx, req, res, routed, catalog, deps);
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

const parse: Stage = (ctx) => {
  let body: unknown;
  try {
    body = JSON.parse(ctx.raw.toString('utf8'));
  } catch (err) {
    return invalid('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid('invalid_body', 'request body must be a JSON object');
  }
  ctx.body = body as Record<string, unknown>;
  const model = ctx.body.model;
  if (typeof model !== 'string' || model.trim() === '') {
    return invalid('missing_model', '`model` is required and must be a non-empty string', 'model');
  }
  ctx.model = model;
  ctx.stream = !ctx.endpoint.countTokens && ctx.body.stream === true;
  return null;
};

function route(ctx: RequestContext, catalog: Catalog): Candidate[] | GatewayError {
  const resolution = resolveModel(catalog, ctx.model);
  if (resolution.kind === 'not_found') {
    return {
      status: 404,
      kind: 'not_found',
      code: 'model_not_found',
      param: 'model',
      message: `model "${ctx.model}" is not known to Breakwater; looked in: ${resolution.lookedIn.join('; ')}`,
    };
  }
  if (resolution.kind === 'ambiguous') {
    return invalid(
      'ambiguous_model',
      `model "${ctx.model}" is listed by several providers (${resolution.providers.join(', ')}); ` +
        `name one as "provider/${ctx.model}" or define a combo`,
      'model',
    );
  }
  if (resolution.combo) ctx.steps.push(`combo ${resolution.combo}`);
  const wanted = providerFormatFor(ctx.endpoint.format);
  const compatible = resolution.targets.filter((t) => t.provider.format === wanted);
  const mismatched = resolution.targets.filter((t) => t.provider.format !== wanted);
  for (const t of mismatched) ctx.steps.push(`${t.label} skipped (speaks ${t.provider.format})`);
  if (compatible.length === 0 && mismatched.length > 0) {
    const names = mismatched.map((t) => `${t.label} (${t.provider.format})`).join(', ');
    return invalid(
      'format_mismatch',
      `model "${ctx.model}" routes to ${names}, but ${ctx.endpoint.path} speaks ${ctx.endpoint.label}, ` +
        `which needs a provider with format "${wanted}". Translation between formats is not available yet: ` +
        "call the endpoint of the provider's own format, or route this model to a provider of this format.",
      'model',
    );
  }
  const { candidates, unexecutable } = expandCandidates(compatible);
  if (candidates.length === 0) {
    const reasons = unexecutable.map((u) => `${u.target}: ${u.reason}`).join('; ');
    return {
      status: 404,
      kind: 'not_found',
      code: 'no_executable_targets',
      message: `model "${ctx.model}" has no target that can be executed (${reasons || 'no targets'})`,
      extra: { diagnostics: { poolSize: compatible.length, attempted: 0, excluded: unexecutable } },
    };
  }
  return candidates;
}

function bodyFor(ctx: RequestContext, model: string): Buffer {
  // Pass the client's bytes through untouched unless the upstream knows the model by another
  // name (combos, `provider/model`).
  return model === ctx.model ? ctx.raw : Buffer.from(JSON.stringify({ ...ctx.body, model }));
}

function timeoutsFor(candidate: Candidate, deps: PipelineDeps): UpstreamTimeouts {
  return { ...deps.timeouts(), ...candidate.target.provider.timeouts };
}

async function dispatch(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  candidates: Candidate[],
  catalog: Catalog,
  deps: PipelineDeps,
): Promise<void> {
  let lastError: GatewayError | null = null;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const isLast = i === candidates.length - 1;
    if (ctx.clientGone) return markClientAbort(ctx);
    ctx.served = candidate;
    const timeouts = timeoutsFor(candidate, deps);
    const controller = new AbortController();
    const abortOnClose = () => controller.abort(new ClientAbortError());
    res.once('close', abortOnClose);
    const deadline = setTimeout(
      () => controller.abort(new DeadlineError(timeouts.totalMs)),
      timeouts.totalMs,
    );
    const label = `${candidate.target.label}@${candidate.connection.id}`;
    const connId = candidate.connection.id;
    deps.inFlight.set(connId, (deps.inFlight.get(connId) ?? 0) + 1);
    try {
      const body = bodyFor(ctx, candidate.target.model);
      let upstream: Dispatcher.ResponseData;
      try {
        upstream = await deps.pools.request({
          provider: candidate.target.provider,
          // The query passes through too: Claude Code sends `/v1/messages?beta=true`.
          path: upstreamPath(candidate.target.provider.format, ctx.endpoint.path) + ctx.search,
          headers: upstreamHeaders(
            req.headers,
            candidate.target.provider,
            catalog.secretOf(candidate.connection),
            body.length,
            ctx.stream,
          ),
          body,
          timeouts,
          signal: controller.signal,
        });
      } catch (err) {
        const failure = classifyAttemptError(err, controller.signal);
        if (failure.kind === 'client_abort') return markClientAbort(ctx);
        ctx.steps.push(`${label} failed (${failure.message})`);
        ctx.errorClass = failure.errorClass;
        ctx.errorMessage = `${candidate.target.label}: ${failure.message}`;
        lastError = {
          status: failure.errorClass.startsWith('timeout') ? 504 : 502,
          kind: failure.errorClass.startsWith('timeout') ? 'timeout' : 'upstream',
          code: failure.errorClass.startsWith('timeout')
            ? 'upstream_timeout'
            : 'upstream_unreachable',
          message: `no upstream could answer: ${ctx.steps.filter((s) => s.includes('failed')).join('; ')}`,
        };
        continue;
      }
      if (upstream.statusCode >= 500 && !isLast) {
        // Nothing has reached the client yet, so the next candidate can still serve it.
        const excerpt = await readBounded(upstream.body, ERROR_BODY_LIMIT);
        const { message } = clientErrorFromUpstream(
          ctx.endpoint.format,
          upstream.statusCode,
          excerpt,
          candidate.target.provider.id,
          catalog.secrets(),
        );
        ctx.steps.push(`${label} failed (HTTP ${upstream.statusCode})`);
        deps.log.warn(
          `proxy: ${label} answered ${upstream.statusCode}: ${message.slice(0, 200)}; trying next target`,
        );
        continue;
      }
      ctx.steps.push(`${label} served${i > 0 ? ` (attempt ${i + 1})` : ''}`);
      // Earlier attempts' failures stay in the decision; the outcome is this attempt's.
      ctx.errorClass = null;
      ctx.errorMessage = null;
      if (upstream.statusCode >= 400) {
        await relayError(ctx, res, upstream, candidate, catalog);
      } else {
        await relay(ctx, res, upstream, controller.signal, candidate);
      }
      return;
    } finally {
      clearTimeout(deadline);
      res.off('close', abortOnClose);
      deps.inFlight.set(connId, (deps.inFlight.get(connId) ?? 1) - 1);
    }
  }
  if (lastError) fail(ctx, res, lastError);
}

function markClientAbort(ctx: RequestContext): void {
  ctx.status = 499;
  ctx.errorClass = 'client_abort';
  ctx.errorMessage = 'client disconnected before the answer was complete';
}

function decisionHeaders(ctx: RequestContext, candidate: Candidate): Record<string, string> {
  return {
    'x-breakwater-decision': ctx.steps.join('; '),
    'x-breakwater-connection': candidate.connection.id,
  };
}

async function relayError(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: Dispatcher.ResponseData,
  candidate: Candidate,
  catalog: Catalog,
): Promise<void> {
  const raw = await readBounded(upstream.body, ERROR_BODY_LIMIT);
  const { body, message } = clientErrorFromUpstream(
    ctx.endpoint.format,
    upstream.statusCode,
    raw,
    candidate.target.provider.id,
    catalog.secrets(),
  );
  ctx.status = upstream.statusCode;
  ctx.errorClass = upstream.statusCode >= 500 ? 'upstream_5xx' : 'upstream_4xx';
  ctx.errorMessage = message;
  if (ctx.clientGone) return;
  const headers = clientResponseHeaders(upstream.headers);
  res.writeHead(upstream.statusCode, {
    ...headers,
    ...decisionHeaders(ctx, candidate),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
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

async function relay(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: Dispatcher.ResponseData,
  signal: AbortSignal,
  candidate: Candidate,
): Promise<void> {
  const isSse = String(upstream.headers['content-type'] ?? '').includes('text/event-stream');
  const headers = clientResponseHeaders(upstream.headers);
  const contentLength = upstream.headers['content-length'];
  if (!isSse && typeof contentLength === 'string') headers['content-length'] = contentLength;
  if (isSse) {
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
  }
  ctx.status = upstream.statusCode;
  res.writeHead(upstream.statusCode, { ...headers, ...decisionHeaders(ctx, candidate) });
  // Headers go out now: a streaming client must not wait for the first token to see them.
  res.flushHeaders();
  const observer = isSse ? new SseUsageObserver() : null;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  try {
    for await (const chunk of upstream.body) {
      const buf = chunk as Buffer;
      if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
      if (observer) observer.push(buf);
      else if (keptBytes < NON_STREAM_USAGE_LIMIT) {
        kept.push(buf);
        keptBytes += buf.length;
      }
      ctx.bytesOut += buf.length;
      if (!res.write(buf)) await waitForDrain(res);
      if (ctx.clientGone) break;
    }
  } catch (err) {
    const failure = classifyAttemptError(err, signal);
    if (failure.kind === 'client_abort' || ctx.clientGone) {
      markClientAbort(ctx);
      return;
    }
    ctx.errorClass = `stream_${failure.errorClass}`;
    ctx.errorMessage = `${candidate.target.label}: ${failure.message} after ${ctx.bytesOut} bytes`;
    if (isSse) {
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
    return;
  } finally {
    if (!upstream.body.destroyed) upstream.body.destroy();
  }
  if (ctx.clientGone) {
    markClientAbort(ctx);
    return;
  }
  res.end();
  if (observer) ctx.usage = observer.usage;
  else if (keptBytes > 0 && keptBytes < NON_STREAM_USAGE_LIMIT) {
    try {
      const parsed = JSON.parse(Buffer.concat(kept, keptBytes).toString('utf8')) as Record<
        string,
        unknown
      >;
      mergeUsage(ctx.usage, usageOf(parsed));
    } catch {
      // A non-JSON success body carries no usage to count.
    }
  }
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
    egressIp: null,
  });
}
