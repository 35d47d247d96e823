import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readSent } from '../../resilience/continuation';
import type { Candidate } from '../../routing/resolve';
import type { CancelState } from '../../upstream/attempt';
import { clientResponseHeaders } from '../../upstream/headers';
import type { UpstreamResponse } from '../../upstream/pools';
import type { BodyReader } from '../../upstream/upstream-body';
import {
  GEMINI_USAGE_KEY,
  mergeUsage,
  reportsUsage,
  SseUsageObserver,
  type UsageKey,
  usageOfBody,
} from '../../usage/usage';
import { type GatewayError, nextSequenceNumber, streamErrorEvent } from '../../wire/client-errors';
import { HOLD_LIMIT_BYTES, type StreamWatch, ThroughputTripError } from '../stream-watch';
import { addDecisionHeaders } from './answer';
import { isEventStream } from './call';
import { committed, markClientAbort, type RequestContext } from './context';
import { holdForContinuation, mayContinue } from './continuation';
import { relayContinuation } from './continue-relay';
import { relayTranslated } from './relay-translated';
import { SeamLog, StreamErrorEventError } from './seam-log';
import { recordBreak, streamInterrupted } from './stream-break';
import {
  addsUsage,
  ContentMeter,
  contentBytesOf,
  isChatPassthrough,
  UsageEventStrip,
} from './stream-usage';
import { translatedFor } from './translate';
import { watchdogEnding, watchFor } from './watchdog-ending';

const NON_STREAM_USAGE_LIMIT = 4 * 1024 * 1024;
const SEQUENCE_KEY = Buffer.from('"sequence_number"');

/**
 * Relay stage: passes an upstream answer on to the client, with backpressure; translated
 * event by event when the provider speaks another API. Settles with 'retry' when the watchdog
 * cut the stream before any byte reached the client.
 */
export function relay(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: UpstreamResponse,
  signal: CancelState,
  candidate: Candidate,
): Promise<'retry' | undefined> {
  if (ctx.seam) return relayContinuation(ctx, res, upstream, signal, candidate, ctx.seam);
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
  /**
   * A Responses stream's latest chunk that carries a sequence number, and the one before it
   * (references): where the relay's own error event finds the number to continue from, past any
   * heartbeats since. Null for other streams.
   */
  private tail: Buffer[] | null;
  private previous: Buffer | null = null;
  private readonly usageKey: UsageKey | undefined;
  /** A passthrough Chat stream, whose content measures an estimate. */
  private readonly chat: boolean;
  /** That content, measured as it goes when no log keeps it; else null. */
  private readonly meter: ContentMeter | null;
  /** Takes out the usage event the gateway asked for and the client did not; else null. */
  private readonly strip: UsageEventStrip | null;
  /** What went out, while a cut may be continued (issue 28); null when it may not. */
  private readonly log: SeamLog | null;

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
    // Gemini names its usage `usageMetadata`; the other formats, `usage`.
    this.usageKey = candidate.target.provider.format === 'gemini' ? GEMINI_USAGE_KEY : undefined;
    this.observer = isSse ? new SseUsageObserver(this.usageKey) : null;
    this.tail = isSse && ctx.endpoint.format === 'openai-responses' ? [] : null;
    const chat = isSse && isChatPassthrough(ctx, candidate);
    this.chat = chat;
    this.strip = chat && addsUsage(ctx, candidate) ? new UsageEventStrip() : null;
    this.log = isSse && mayContinue(ctx) ? new SeamLog(ctx.endpoint.format) : null;
    // With the log, what went out is kept anyway: measured at the end, and only if needed.
    this.meter = chat && !this.log ? new ContentMeter() : null;
    if (!this.watch) this.start();
    upstream.body.read(this);
    // The head leaves with the first write: the first event read ahead by the peek, or a
    // whole body, is written just above. A stream with nothing to show yet still gets its head
    // now, so its client is not kept waiting for the first token to see it. (One write instead of
    // two: on a virtual machine each write that wakes the client costs tenths of a millisecond.)
    if (this.isSse && this.headers === null && ctx.bytesOut === 0) res.flushHeaders();
  }

  private start(): void {
    this.res.writeHead(
      this.upstream.statusCode,
      addDecisionHeaders(this.headers!, this.ctx, this.candidate),
    );
    this.headers = null;
    committed(this.ctx);
  }

  /** Writes the head and hands back what was held, joined. */
  private release(): Buffer {
    this.start();
    const out = Buffer.concat(this.pending ?? [], this.pendingBytes);
    this.pending = null;
    return out;
  }

  data(chunk: Buffer): boolean {
    const ctx = this.ctx;
    let buf = chunk;
    if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
    if (this.tail) {
      if (buf.lastIndexOf(SEQUENCE_KEY) !== -1)
        this.tail = this.previous ? [this.previous, buf] : [buf];
      this.previous = buf;
    }
    if (this.observer) {
      const usageFrom = this.observer.push(buf);
      this.meter?.push(buf);
      if (this.strip) {
        buf = this.strip.push(buf, usageFrom);
        if (buf.length === 0) return true;
      }
    } else if (this.keptBytes < NON_STREAM_USAGE_LIMIT) {
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
    if (this.log) {
      buf = this.log.whole(buf);
      if (this.log.errored) {
        // What came before the error event goes out; the event itself is the cut.
        if (buf.length > 0) this.res.write(buf);
        ctx.bytesOut += buf.length;
        // Once this chunk is handled: a body that has ended meanwhile went to `end`, which
        // finds the error event; one still open is stopped here.
        const body = this.upstream.body;
        queueMicrotask(() => {
          if (!body.destroyed) body.destroy(new StreamErrorEventError());
        });
        return true;
      }
      if (buf.length === 0) return true;
    }
    ctx.bytesOut += buf.length;
    if (this.res.write(buf)) return true;
    // A client gone meanwhile is handled by the request's close listener, which cancels the
    // call; the body then fails and `error` ends the relay.
    this.res.once('drain', () => this.upstream.body.resume());
    return false;
  }

  /** The relay is done: what it kept of the stream goes (see `SeamLog.release`). */
  private over(outcome: 'retry' | undefined): void {
    this.log?.release();
    this.tail = null;
    this.previous = null;
    this.settle(outcome);
  }

  end(): void {
    try {
      this.watch?.stop();
      const { ctx, res } = this;
      if (ctx.clientGone) {
        markClientAbort(ctx);
        this.over(undefined);
        return;
      }
      if (this.log && this.pending === null && this.endedEarly()) {
        this.over(this.broke(new StreamErrorEventError(!this.log.errored)));
        return;
      }
      // An unfinished last line the usage strip held goes out as it came.
      const rest = this.strip?.rest() ?? this.log?.rest();
      if (this.pending) {
        // The stream ended before any useful event: what it sent goes out as it was.
        if (rest) {
          this.pending.push(rest);
          this.pendingBytes += rest.length;
        }
        const held = this.release();
        ctx.bytesOut += held.length;
        res.end(held);
      } else if (rest) {
        ctx.bytesOut += rest.length;
        res.end(rest);
      } else res.end();
      if (this.observer) ctx.usage = this.observer.usage;
      else if (this.keptBytes > 0 && this.keptBytes < NON_STREAM_USAGE_LIMIT) {
        const kept = this.kept;
        const body = kept.length === 1 ? kept[0]! : Buffer.concat(kept);
        mergeUsage(ctx.usage, usageOfBody(body, this.usageKey));
      }
      this.measureContent();
      this.kept = [];
      this.over(undefined);
    } catch (err) {
      this.crash(err);
    }
  }

  error(err: Error): void {
    try {
      this.over(this.broke(err));
    } catch (thrown) {
      this.crash(thrown);
    }
  }

  /** The stream's closing error event in the client's format, continuing a Responses stream's numbering. */
  private ending(err: GatewayError): string {
    return streamErrorEvent(
      this.ctx.endpoint.format,
      err,
      this.tail ? nextSequenceNumber(this.tail) : 0,
    );
  }

  /** A stream that ended without its stop reason, or with an error event. */
  private endedEarly(): boolean {
    const log = this.log!;
    if (log.errored) return true;
    return !log.endedCleanly() && !readSent(this.ctx.endpoint.format, log.chunks).stopped;
  }

  /** Leaves the stream open for the dispatch to continue; false when it may not be. */
  private hold(ending: GatewayError): boolean {
    if (!this.log || !mayContinue(this.ctx)) return false;
    holdForContinuation(this.ctx, {
      format: this.ctx.endpoint.format,
      chunks: this.log.take(),
      translator: null,
      sequence: this.tail ? nextSequenceNumber(this.tail) : 0,
      candidate: this.candidate,
      ending,
      ...(this.endReason ? { reason: this.endReason } : {}),
    });
    return true;
  }

  private endReason: string | null = null;

  /** A Chat stream's content bytes, for an estimate when the provider reported no usage. */
  private measureContent(): void {
    if (this.meter) this.ctx.contentBytes = this.meter.bytes;
    else if (this.chat && this.log && !reportsUsage(this.observer?.usage ?? this.ctx.usage)) {
      this.ctx.contentBytes = contentBytesOf(this.log.chunks);
    }
  }

  private broke(err: Error): 'retry' | undefined {
    this.watch?.stop();
    const { ctx, res, candidate } = this;
    this.measureContent();
    if (err instanceof ThroughputTripError && !ctx.clientGone) {
      const beforeCommit = this.pending !== null;
      const hold = this.log ? (e: GatewayError) => this.hold(e) : undefined;
      return watchdogEnding(ctx, res, (e) => this.ending(e), candidate, err, beforeCommit, hold);
    }
    if (this.pending) {
      let held = this.release();
      if (this.log) held = this.log.whole(held);
      ctx.bytesOut += held.length;
      res.write(held);
    }
    let detail: string | null;
    if (err instanceof StreamErrorEventError && !ctx.clientGone) {
      ctx.errorClass = 'upstream_stream_error';
      ctx.errorMessage = `${candidate.target.label}: ${err.message}`;
      if (err.early) this.endReason = 'upstream_stream_incomplete';
      detail = err.message;
    } else detail = recordBreak(ctx, err, this.signal, candidate);
    if (detail === null) return undefined;
    if (this.isSse) {
      const ending = streamInterrupted(candidate, detail);
      if (this.hold(ending)) return undefined;
      // The status line is gone; a well-formed error event is the only honest ending.
      res.end(this.ending(ending));
    } else {
      res.destroy();
    }
    return undefined;
  }
}
