import type { ServerResponse } from 'node:http';
import { createStreamTranslator, responseAsStream, type StreamTranslator } from '../../translate';
import { gatewayErrorOf } from '../../translate/errors';
import type { IrError } from '../../translate/ir';
import { type GatewayError, streamErrorEvent } from '../../wire/client-errors';
import { HOLD_LIMIT_BYTES, type StreamWatch, ThroughputTripError } from '../stream-watch';
import { addDecisionHeaders } from './answer';
import { committed, markClientAbort } from './context';
import { holdForContinuation, mayContinue } from './continuation';
import { SeamLog } from './seam-log';
import { recordBreak, streamInterrupted } from './stream-break';
import type { TranslatedAnswer } from './translated-answer';
import { watchdogEnding, watchFor } from './watchdog-ending';

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
 * Relays a translated answer to a client that asked to stream: an upstream stream event by
 * event, a whole upstream body replayed as a stream. `run` settles with 'retry' when the
 * watchdog cut the stream before any byte reached the client.
 */
export class TranslatedStream {
  private readonly watch: StreamWatch | null;
  /** With the watchdog on, the head and the events before the first useful one wait here (§6). */
  private pending: string | null;
  /** Made once the stream is read: the relay's own error events continue its numbering. */
  private translator: StreamTranslator | null = null;
  /** The upstream's bytes, while a cut may be continued (issue 28); else null. */
  private log: SeamLog | null = null;

  constructor(private readonly answer: TranslatedAnswer) {
    this.watch = answer.isSse ? watchFor(answer.ctx, answer.wire, answer.upstream) : null;
    this.pending = this.watch ? '' : null;
    if (!this.watch) this.start();
  }

  async run(): Promise<'retry' | undefined> {
    const { body } = this.answer.upstream;
    try {
      if (this.answer.isSse) await this.relayEvents();
      else await this.replayWhole();
      return undefined;
    } catch (err) {
      // Awaited, so the body is let go only after the closing event was written.
      return await this.broke(err);
    } finally {
      this.watch?.stop();
      this.log?.release();
      if (!body.destroyed) body.destroy();
    }
  }

  /** Each upstream chunk feeds the watchdog, then goes out converted as soon as it is read. */
  private async relayEvents(): Promise<void> {
    const { ctx, upstream } = this.answer;
    const translator = createStreamTranslator(
      this.answer.wire,
      this.answer.client,
      this.answer.writerOpts,
    );
    this.translator = translator;
    const watch = this.watch;
    const log = mayContinue(ctx) ? new SeamLog(this.answer.wire) : null;
    if (log) {
      translator.holdErrors = true;
      translator.holdTools = ctx.continuation?.holdToolCalls === true;
    }
    this.log = log;
    for await (const chunk of upstream.body) {
      if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
      watch?.push(chunk as Buffer);
      log?.keep(chunk as Buffer);
      await this.send(translator.push(chunk as Buffer));
      if (ctx.clientGone) break;
      if (log && translator.errored) break;
    }
    if (ctx.clientGone) {
      markClientAbort(ctx);
      return;
    }
    await this.release();
    if (!log) return this.finish(translator, translator.end());
    // Held back, an error event (or an early end) leaves the writer's closing events out.
    const tail = translator.end();
    const held = translator.takeError();
    if (!held) return this.finish(translator, tail);
    await this.send(tail);
    this.heldError(held);
  }

  /**
   * The upstream's stream carried an error event or ended before its stop reason: the stream
   * waits for a continuation, or ends with that error as it would have without one.
   */
  private heldError(err: IrError): void {
    const { ctx, res, candidate } = this.answer;
    this.answer.keepUsage(this.translator!.usage);
    ctx.errorClass = 'upstream_stream_error';
    ctx.errorMessage = `${candidate.target.label} reported an error inside its stream`;
    const early = err.code === 'upstream_stream_incomplete';
    if (this.hold(gatewayErrorOf(err), early ? 'upstream_stream_incomplete' : undefined)) return;
    const tail = this.translator!.fail(err);
    ctx.bytesOut += Buffer.byteLength(tail);
    res.end(tail);
  }

  /** Leaves the stream open for the dispatch to continue; false when it may not be. */
  private hold(ending: GatewayError, reason?: string): boolean {
    const { ctx, candidate } = this.answer;
    if (!this.log || this.pending !== null || !this.translator || !mayContinue(ctx)) return false;
    holdForContinuation(ctx, {
      format: this.answer.wire,
      chunks: this.log.take(),
      translator: this.translator,
      sequence: 0,
      candidate,
      ending,
      ...(reason ? { reason } : {}),
    });
    return true;
  }

  /** The stream's last events, its usage, and whether the upstream said it failed inside it. */
  private finish(translator: StreamTranslator, tail: string): void {
    const { ctx, res, candidate } = this.answer;
    this.answer.keepUsage(translator.usage);
    if (translator.errored) {
      ctx.errorClass = 'upstream_stream_error';
      ctx.errorMessage = `${candidate.target.label} reported an error inside its stream`;
    }
    ctx.bytesOut += Buffer.byteLength(tail);
    res.end(tail);
  }

  /** Asked to stream, the upstream answered in one piece: replay it as a stream. */
  private async replayWhole(): Promise<void> {
    const { ctx, res } = this.answer;
    const parsed = await this.answer.readWhole();
    if (!parsed) {
      const invalid = this.answer.invalidAnswer();
      ctx.errorClass = 'upstream_invalid_response';
      ctx.errorMessage = invalid.message;
      res.end(this.ending(invalid));
      return;
    }
    const { wire, client, writerOpts } = this.answer;
    const replay = responseAsStream(wire, client, parsed, writerOpts);
    this.answer.keepUsage(replay.usage);
    await this.send(replay.text);
    if (!ctx.clientGone) res.end();
    else markClientAbort(ctx);
  }

  private async broke(err: unknown): Promise<'retry' | undefined> {
    const { ctx, res, candidate } = this.answer;
    if (err instanceof ThroughputTripError && !ctx.clientGone) {
      const hold = this.log ? (e: GatewayError) => this.hold(e) : undefined;
      return watchdogEnding(ctx, res, this.ending, candidate, err, this.pending !== null, hold);
    }
    if (recordBreak(ctx, err, this.answer.signal, candidate) === null) return undefined;
    await this.release();
    const ending = streamInterrupted(candidate, ctx.errorMessage);
    if (this.hold(ending)) return undefined;
    res.end(this.ending(ending));
    return undefined;
  }

  /** The stream's closing error event in the client's format. */
  private readonly ending = (err: GatewayError): string =>
    this.translator ? this.translator.fail(err) : streamErrorEvent(this.answer.client, err);

  private start(): void {
    const { ctx, res, upstream, candidate, headers } = this.answer;
    addDecisionHeaders(headers, ctx, candidate);
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    res.writeHead(upstream.statusCode, headers);
    res.flushHeaders();
    committed(ctx);
  }

  /** Writes converted text, or holds it back (with the head) until the watchdog commits. */
  private async send(text: string): Promise<void> {
    if (this.pending !== null) {
      this.pending += text;
      if (!this.watch?.committed && this.pending.length < HOLD_LIMIT_BYTES) return;
      this.start();
      text = this.pending;
      this.pending = null;
    }
    if (text === '') return;
    this.answer.ctx.bytesOut += Buffer.byteLength(text);
    if (!this.answer.res.write(text)) await waitForDrain(this.answer.res);
  }

  /** Sends what was held back when the stream ends or breaks before a useful event. */
  private async release(): Promise<void> {
    if (this.pending === null) return;
    this.start();
    const text = this.pending;
    this.pending = null;
    await this.send(text);
  }
}
