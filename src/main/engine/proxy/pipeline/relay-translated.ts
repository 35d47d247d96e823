import type { ServerResponse } from 'node:http';
import type { Candidate } from '../../routing/resolve';
import {
  createStreamTranslator,
  emitResponse,
  type IrUsage,
  isJsonObject,
  parseResponse,
  requestEcho,
  responseAsStream,
  type StreamTranslator,
  type WireFormat,
} from '../../translate';
import { type CancelState, classifyAttemptError, readBounded } from '../../upstream/attempt';
import { clientResponseHeaders } from '../../upstream/headers';
import type { UpstreamResponse } from '../../upstream/pools';
import { type GatewayError, streamErrorEvent } from '../../wire/client-errors';
import { HOLD_LIMIT_BYTES, ThroughputTripError } from '../stream-watch';
import { addDecisionHeaders, fail } from './answer';
import { isEventStream } from './call';
import { bodyOf, committed, markClientAbort, type RequestContext } from './context';
import { translatedFor } from './translate';
import { watchdogEnding, watchFor } from './watchdog-ending';

const TRANSLATE_BODY_LIMIT = 64 * 1024 * 1024;

function setUsage(ctx: RequestContext, usage: IrUsage): void {
  ctx.usage = {
    inputTokens: usage.input,
    outputTokens: usage.output,
    cachedTokens: usage.cached,
    cacheWriteTokens: usage.cacheCreation,
    reasoningTokens: usage.reasoning,
  };
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

/**
 * Relays an answer in another format: a whole body is converted at once; a stream is decoded
 * and converted event by event, each client event written as soon as its upstream event arrived.
 */
export async function relayTranslated(
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
  const echo = requestEcho(client, bodyOf(ctx));
  const writerOpts = {
    nowMs: ctx.now(),
    now: ctx.now,
    includeUsage:
      (bodyOf(ctx).stream_options as { include_usage?: unknown } | undefined)?.include_usage ===
      true,
    ...(customTools ? { customTools } : {}),
    ...(echo ? { echo } : {}),
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
    const body = JSON.stringify(emitResponse(client, ir, writerOpts));
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

  const start = () => {
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
  if (!watch) start();
  const send = async (text: string): Promise<void> => {
    if (pending !== null) {
      pending += text;
      if (!watch?.committed && pending.length < HOLD_LIMIT_BYTES) return;
      start();
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
    start();
    const text = pending;
    pending = null;
    await send(text);
  };
  // Made once the stream is read: the relay's own error events continue its numbering.
  let translator: StreamTranslator | null = null;
  const ending = (err: GatewayError): string =>
    translator ? translator.fail(err) : streamErrorEvent(client, err);
  try {
    if (!isSse) {
      // Asked to stream, the upstream answered in one piece: replay it as a stream.
      const parsed = await readWhole();
      if (!parsed) {
        ctx.errorClass = 'upstream_invalid_response';
        ctx.errorMessage = invalidAnswer.message;
        res.end(ending(invalidAnswer));
        return;
      }
      const replay = responseAsStream(wire, client, parsed, writerOpts);
      setUsage(ctx, replay.usage);
      await send(replay.text);
      if (!ctx.clientGone) res.end();
      else markClientAbort(ctx);
      return;
    }
    translator = createStreamTranslator(wire, client, writerOpts);
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
      return watchdogEnding(ctx, res, ending, candidate, err, pending !== null);
    }
    if (!broke(err)) return;
    await release();
    res.end(
      ending({
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
