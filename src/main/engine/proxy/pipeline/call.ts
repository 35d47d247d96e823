import { NO_RATE_LIMIT } from '../../resilience/flow';
import { classify } from '../../resilience/health';
import type { Candidate } from '../../routing/resolve';
import { geminiPath, type WireFormat } from '../../translate';
import { classifyAttemptError, readBounded } from '../../upstream/attempt';
import { type FirstEventError, peekFirstEventError } from '../../upstream/first-event';
import { upstreamHeaders } from '../../upstream/headers';
import { type UpstreamResponse, upstreamPath } from '../../upstream/pools';
import type { OutgoingBody } from '../../wire/body-pieces';
import { ContentIdleWatch } from '../stream-watch';
import type { Attempt, CallOutcome } from './attempt';
import { sentFromChunks } from './body-block';
import { holdAttempt, keepAnswer } from './capture';
import type { RequestContext } from './context';
import { ExecutionExpiredError } from './hold';
import { NO_MEMBERS, outgoingPassthrough, withMembers } from './passthrough-body';
import { cacheKeyMember, sessionCacheKey } from './prompt-cache';
import { ShapedSend } from './shape';
import { addsUsage, USAGE_ASKED, usageAskedAgain } from './stream-usage';
import { translatedFor } from './translate';

const ERROR_BODY_LIMIT = 64 * 1024;
const NO_EXTRA_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const EXPIRED: CallOutcome = Object.freeze({ kind: 'expired' });
const GONE: CallOutcome = Object.freeze({ kind: 'gone' });

/**
 * The last attempt stage: the upstream call. Sends the request (through the subscription lane
 * for Anthropic subscription accounts, §2), reads an event stream's firstEvent event (an error
 * there is handled like that error's status, §7), learns rate limits and the egress address
 * from the answer's head, and classifies an error answer. Nothing has reached the client yet.
 */
export async function call(a: Attempt): Promise<CallOutcome> {
  const { ctx, candidate, deps, cancel } = a;
  let upstream: UpstreamResponse;
  let firstEvent: FirstEventError | null = null;
  let shaped: ShapedSend | null = null;
  const held = holdAttempt(a);
  try {
    const secret = ctx.catalog.secretOf(candidate.connection);
    const path = upstreamPathFor(ctx, candidate);
    const sendBody = (
      built: OutgoingBody,
      extra: Readonly<Record<string, string>>,
    ): Promise<UpstreamResponse> => {
      if (cancel.reason) return Promise.reject(cancel.reason);
      // Never a view of a pooled block on a socket: it may outlive the request (body-block.ts).
      const body = ctx.pooled === null ? built : sentFromChunks(built, ctx.pooled);
      const headers = upstreamHeaders(
        ctx.req.headers,
        candidate.target.provider,
        secret,
        body.length,
        ctx.stream,
        extra,
      );
      if (held) {
        held.path = path;
        held.headers = headers;
        held.body = body;
      }
      const exchange = deps.pools.request({
        provider: candidate.target.provider,
        path,
        headers,
        body,
        // The pools read the connect, first-byte and idle bounds; the attempt's whole time (a
        // repair or a lane retry sends again within what is left of it) is its deadline timer's.
        timeouts: a.timeouts,
      });
      cancel.bind(exchange);
      return exchange.response;
    };
    const send = new ShapedSend(a, deps.shape, attemptBody, sendBody);
    shaped = send;
    // Anthropic subscription accounts (§2): a 5-hour limit 429 is answered on this connection
    // (limit reset, low-priority lane) before classification and cooldown see it.
    if (deps.subscription?.applies(candidate)) {
      upstream = await deps.subscription.send(
        candidate,
        secret,
        a.startedAt + a.remaining,
        cancel.signal,
        (extra) => send.send(extra),
      );
    } else {
      // `send.send`'s steps, awaited here: one async frame less on every request.
      upstream = await send.first(NO_EXTRA_HEADERS);
      if (!send.final(upstream)) upstream = await send.repair(upstream, NO_EXTRA_HEADERS);
    }
    if (held) {
      held.status = upstream.statusCode;
      held.responseHeaders = upstream.headers;
    }
    if (isEventStream(upstream) && upstream.statusCode === 200) {
      const body = upstream.body;
      const idle = deps.shape?.contentIdle()
        ? new ContentIdleWatch(
            translatedFor(ctx, candidate)?.wire ?? ctx.endpoint.format,
            a.timeouts.idleMs,
            ctx.now,
            body,
          )
        : null;
      const tap = held ? keepAnswer(ctx, held, idle, body) : idle;
      if (tap) body.setTap(tap);
      firstEvent = await peekFirstEventError(body);
    } else if (held && upstream.statusCode < 400) {
      upstream.body.setTap(keepAnswer(ctx, held, null, upstream.body));
    }
  } catch (err) {
    if (cancel.reason instanceof ExecutionExpiredError) return EXPIRED;
    const failure = classifyAttemptError(err, cancel);
    if (failure.kind === 'client_abort') return GONE;
    if (held) {
      held.error = failure.message;
      held.endedAt = ctx.now();
    }
    return { kind: 'unreachable', failure };
  }
  const connId = candidate.connection.id;
  deps.flow.queues.learn(
    candidate.target.provider.id,
    connId,
    candidate.connection.options?.rateLimit ?? NO_RATE_LIMIT,
    upstream.headers,
  );
  ctx.egressIp = deps.pools.egressOf(candidate.target.provider.id);
  if (ctx.egressIp) deps.resilience.noteEgress(connId, ctx.egressIp, a.startedAt);
  const status = firstEvent?.status ?? upstream.statusCode;
  if (status < 400) return { kind: 'answered', upstream };
  const raw = firstEvent?.raw ?? (await readBounded(upstream.body, ERROR_BODY_LIMIT));
  if (firstEvent) upstream.body.destroy();
  if (held) {
    held.status = status;
    held.responseBody = raw;
    held.endedAt = ctx.now();
  }
  const cls = classify(
    {
      provider: candidate.target.provider.id,
      status,
      headers: upstream.headers,
      bodyText: raw.toString('utf8'),
    },
    deps.errorRules(),
    ctx.now(),
  );
  return {
    kind: 'refused',
    held: { candidate, status, headers: upstream.headers, raw, cls },
    firstEvent: firstEvent !== null,
    shape: firstEvent ? null : (shaped?.refusal ?? null),
  };
}

export function isEventStream(upstream: UpstreamResponse): boolean {
  return String(upstream.headers['content-type'] ?? '').includes('text/event-stream');
}

const ASKED_ONLY: readonly Buffer[] = [USAGE_ASKED];

function attemptBody(a: Attempt): OutgoingBody {
  const { ctx, candidate } = a;
  const model = candidate.target.model;
  const translated = translatedFor(ctx, candidate);
  if (translated) {
    // A Gemini request names its model in the path.
    const json = translated.wire === 'gemini' ? translated.json : { ...translated.json, model };
    return Buffer.from(JSON.stringify(json));
  }
  if (ctx.endpoint.gemini) return ctx.raw;
  const cacheKey = sessionCacheKey(ctx, candidate.target.provider);
  const keyed = cacheKey === null ? NO_MEMBERS : [cacheKeyMember(cacheKey)];
  if (!addsUsage(ctx, candidate)) return outgoingPassthrough(ctx, model, keyed);
  const again = usageAskedAgain(ctx, model);
  if (again) return withMembers(again, keyed);
  return outgoingPassthrough(ctx, model, cacheKey === null ? ASKED_ONLY : [...keyed, USAGE_ASKED]);
}

const WIRE_PATHS: Record<Exclude<WireFormat, 'gemini'>, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/chat/completions',
  'openai-responses': '/responses',
};

function upstreamPathFor(ctx: RequestContext, candidate: Candidate): string {
  const translated = translatedFor(ctx, candidate);
  const model = candidate.target.model;
  // A translated request goes to the other API's own path; the client's query is for its API
  // (a Gemini client's may hold its gateway key, `?key=`).
  if (translated?.wire === 'gemini') return geminiPath(model, ctx.stream);
  if (translated) return WIRE_PATHS[translated.wire];
  if (ctx.endpoint.gemini) return geminiPath(model, ctx.stream, ctx.endpoint.countTokens);
  // The query passes through too: Claude Code sends `/v1/messages?beta=true`.
  return upstreamPath(candidate.target.provider.format, ctx.endpoint.path) + ctx.search;
}
