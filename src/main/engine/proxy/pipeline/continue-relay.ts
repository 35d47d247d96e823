import type { ServerResponse } from 'node:http';
import type { Candidate } from '../../routing/resolve';
import { createStreamParser } from '../../translate';
import type { IrEvent } from '../../translate/ir';
import { SseDecoder } from '../../translate/stream';
import type { CancelState } from '../../upstream/attempt';
import type { UpstreamResponse } from '../../upstream/pools';
import { isEventStream } from './call';
import type { RequestContext, StreamContinuation } from './context';
import { holdForContinuation, keepSeamUsage } from './continuation';
import { recordBreak, streamInterrupted } from './stream-break';
import { wireFor } from './translate';

function drained(res: ServerResponse): Promise<void> {
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
 * Relays a continuation into the client's stream that is already open (issue 28): its events,
 * in whatever format the upstream speaks, go through the seam to the client's writer. A break
 * sets the next continuation up for the dispatch; a clean end closes the client's stream.
 */
export async function relayContinuation(
  ctx: RequestContext,
  res: ServerResponse,
  upstream: UpstreamResponse,
  signal: CancelState,
  candidate: Candidate,
  k: StreamContinuation,
): Promise<undefined> {
  const { seam } = k;
  seam.begin();
  ctx.steps.push(
    `stream continued on ${candidate.target.label} (continuation ${seam.count}, cut ${seam.cut.reason} after ${seam.cut.chars} chars at ${seam.cut.target})`,
  );
  const body = upstream.body;
  const parser = createStreamParser(wireFor(ctx, candidate) ?? ctx.endpoint.format);
  const decoder = new SseDecoder();
  const write = async (events: IrEvent[]): Promise<void> => {
    const out = seam.relay(events);
    if (out === '') return;
    ctx.bytesOut += Buffer.byteLength(out);
    if (!res.write(out)) await drained(res);
  };
  try {
    if (!isEventStream(upstream)) throw new Error('the continuation did not answer as a stream');
    for await (const chunk of body) {
      const events: IrEvent[] = [];
      decoder.push(chunk as Buffer, (event, data) => {
        for (const ev of parser.push(event, data)) events.push(ev);
      });
      await write(events);
      if (ctx.clientGone || seam.error) break;
    }
    if (ctx.clientGone) return undefined;
    if (!seam.error) {
      const events: IrEvent[] = [];
      decoder.end((event, data) => {
        for (const ev of parser.push(event, data)) events.push(ev);
      });
      events.push(...parser.end());
      await write(events);
    }
    if (seam.error || !seam.finished) {
      const reason =
        seam.error?.code === 'upstream_stream_incomplete' || !seam.error
          ? 'upstream_stream_incomplete'
          : 'upstream_stream_error';
      ctx.errorClass = 'upstream_stream_error';
      ctx.errorMessage = `${candidate.target.label}: ${seam.error?.message ?? 'the stream ended before its stop reason'}`;
      cutAgain(ctx, candidate, k, reason);
      return undefined;
    }
    const tail = seam.flush() + seam.translator.close();
    ctx.bytesOut += Buffer.byteLength(tail);
    res.end(tail);
    keepSeamUsage(ctx, seam.total);
    return undefined;
  } catch (err) {
    if (recordBreak(ctx, err, signal, candidate) === null) return undefined;
    cutAgain(ctx, candidate, k, undefined);
    return undefined;
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

function cutAgain(
  ctx: RequestContext,
  candidate: Candidate,
  k: StreamContinuation,
  reason: string | undefined,
): void {
  holdForContinuation(ctx, {
    format: ctx.endpoint.format,
    chunks: [],
    translator: k.seam.translator,
    sequence: 0,
    candidate,
    ending: streamInterrupted(candidate, ctx.errorMessage),
    ...(reason ? { reason } : {}),
  });
  keepSeamUsage(ctx, k.seam.total);
}
