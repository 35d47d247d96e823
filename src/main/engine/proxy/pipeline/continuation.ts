import {
  type Cut,
  continuationBody,
  continuationForm,
  readSent,
  Seam,
  type SentAnswer,
} from '../../resilience/continuation';
import type { Candidate } from '../../routing/resolve';
import {
  createStreamTranslator,
  customToolsOf,
  parseRequest,
  requestEcho,
  type StreamTranslator,
  type WireFormat,
  type WriterOptions,
} from '../../translate';
import type { IrRequest, IrUsage } from '../../translate/ir';
import type { GatewayError } from '../../wire/client-errors';
import type { RequestContext, StreamContinuation } from './context';
import { translationKey, wireFor } from './translate';

/** The first break of a stream whose head went out; what it needs to know of it. */
export interface FirstBreak {
  /** The format of the logged bytes. */
  readonly format: WireFormat;
  readonly chunks: readonly Buffer[];
  /** A translated stream's live translator; null for a passthrough one (a shadow is built). */
  readonly translator: StreamTranslator | null;
  /** A passthrough Responses stream's next sequence number. */
  readonly sequence: number;
  readonly candidate: Candidate;
  readonly ending: GatewayError;
  /** Why it broke, when the error class does not say it exactly (an early end). */
  readonly reason?: string;
}

/**
 * Whether a stream that broke after its head waits for the dispatch to continue it (the
 * relay then writes no ending): continuation is on, the stream is one, the client is there.
 */
export function mayContinue(ctx: RequestContext): boolean {
  return ctx.continuation !== null && ctx.stream && !ctx.clientGone && !ctx.endpoint.countTokens;
}

/** A cut: the continuation to come is set on the request (ctx.seam). */
export function holdForContinuation(ctx: RequestContext, first: FirstBreak): void {
  const cut = (chars: number): Cut => ({
    reason: first.reason ?? ctx.errorClass ?? 'stream_network',
    chars,
    target: first.candidate.target.label,
  });
  const current = ctx.seam;
  if (current) {
    current.seam.broke(cut(current.seam.partial.length));
    if (current.seam.translator.dropTools()) current.seam.at = 'held_tool';
    current.ending = first.ending;
    return;
  }
  const sent = readSent(first.format, first.chunks, first.translator?.dropTools() ?? false);
  const request = retainedRequest(ctx);
  const translator = first.translator ?? shadowTranslator(ctx, request, sent, first.sequence);
  ctx.seam = {
    seam: new Seam(translator, sent, cut(sent.text.length)),
    request,
    ending: first.ending,
  };
}

/** The client's request bytes kept past the head, joined once if they were kept as chunks. */
function retainedBytes(ctx: RequestContext): Buffer {
  const kept = ctx.retained;
  if (kept === null) return ctx.raw;
  if (Buffer.isBuffer(kept)) return kept;
  const joined = Buffer.concat(kept);
  ctx.retained = joined;
  return joined;
}

/** The client's request in the internal form, from the bytes kept past the head. */
function retainedRequest(ctx: RequestContext): IrRequest {
  const raw = retainedBytes(ctx);
  const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  return parseRequest(ctx.endpoint.format, body, { model: ctx.model, stream: true }).value;
}

/**
 * A writer in the client's own format brought to where the client's passthrough stream is,
 * by writing it the stream's events again (its output is what the client already has).
 */
function shadowTranslator(
  ctx: RequestContext,
  request: IrRequest,
  sent: SentAnswer,
  sequence: number,
): StreamTranslator {
  const client = ctx.endpoint.format;
  const raw = retainedBytes(ctx);
  const echo = requestEcho(client, JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
  const opts: WriterOptions = {
    nowMs: ctx.now(),
    now: ctx.now,
    includeUsage:
      (ctx.streamOptions as { include_usage?: unknown } | undefined)?.include_usage === true,
    customTools: customToolsOf(request),
    ...(echo ? { echo } : {}),
  };
  const t = createStreamTranslator(client, client, opts);
  t.apply(sent.events);
  t.resumeSequence(sequence);
  // A continuation's tool calls are held too: the client gets them whole or not at all.
  t.holdTools = ctx.continuation?.holdToolCalls === true;
  return t;
}

/**
 * The continuation request for a candidate, put where the call stage finds a translated body:
 * in the candidate's upstream format, carrying the partial answer in that format's form.
 */
export function prepareContinuation(
  ctx: RequestContext,
  c: Candidate,
  k: StreamContinuation,
): void {
  const provider = c.target.provider;
  const wire = wireFor(ctx, c) ?? ctx.endpoint.format;
  const form = continuationForm(wire, provider.baseUrl);
  const json = continuationBody(
    wire,
    { ...k.request, model: c.target.model },
    k.seam.partial,
    form,
    provider.format,
  );
  ctx.translated = new Map([
    [
      translationKey(wireFor(ctx, c), provider),
      { wire, json, dropped: '', customTools: customToolsOf(k.request) },
    ],
  ]);
}

/** No continuation: the stream ends with its error event, as it would have without one. */
export function endContinuation(ctx: RequestContext, k: StreamContinuation, why: string): void {
  ctx.steps.push(`stream not continued (${why})`);
  const res = ctx.res;
  if (res.writableEnded) return;
  const tail = k.seam.translator.fail(k.ending);
  ctx.bytesOut += Buffer.byteLength(tail);
  res.end(tail);
}

/** The request's token counts, from the continued stream's calls added up. */
export function keepSeamUsage(ctx: RequestContext, u: IrUsage): void {
  ctx.usage = {
    inputTokens: u.input,
    outputTokens: u.output,
    cachedTokens: u.cached,
    cacheWriteTokens: u.cacheCreation,
    reasoningTokens: u.reasoning,
  };
}

/**
 * Candidates to continue on, by their place: the one that was cut first when the failure looks
 * transient, else the ones after it first and the cut one last; all of them up to three times,
 * as connections the upstream closed along with the cut one fail tries before any answer.
 */
export function continuationOrder(n: number, cutAt: number, sameTarget: boolean): number[] {
  const after: number[] = [];
  for (let i = 1; i < n; i++) after.push((cutAt + i) % n);
  const once = sameTarget ? [cutAt, ...after] : [...after, cutAt];
  return [...once, ...once, ...once];
}
