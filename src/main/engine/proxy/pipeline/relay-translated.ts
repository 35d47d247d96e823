import type { ServerResponse } from 'node:http';
import type { Candidate } from '../../routing/resolve';
import { emitResponse, parseResponse, type WireFormat } from '../../translate';
import type { CancelState } from '../../upstream/attempt';
import type { UpstreamResponse } from '../../upstream/pools';
import { addDecisionHeaders, fail } from './answer';
import { markClientAbort, type RequestContext } from './context';
import { recordBreak } from './stream-break';
import { TranslatedAnswer } from './translated-answer';
import { TranslatedStream } from './translated-stream';

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
  const answer = new TranslatedAnswer(ctx, res, upstream, signal, candidate, wire);
  if (!ctx.stream) return relayWhole(answer);
  return new TranslatedStream(answer).run();
}

/** For a client that did not ask to stream: the whole answer, converted and written at once. */
async function relayWhole(answer: TranslatedAnswer): Promise<undefined> {
  const { ctx, res, upstream, candidate, headers } = answer;
  let parsed: Record<string, unknown> | null;
  try {
    parsed = answer.isSse ? null : await answer.readWhole();
  } catch (err) {
    if (recordBreak(ctx, err, answer.signal, candidate) !== null) {
      fail(ctx, res, {
        status: 502,
        kind: 'upstream',
        code: 'upstream_stream_interrupted',
        message: `the answer from ${candidate.target.label} broke off: ${ctx.errorMessage}`,
      });
    }
    return undefined;
  }
  if (!parsed) {
    ctx.errorClass = 'upstream_invalid_response';
    fail(ctx, res, answer.invalidAnswer());
    return undefined;
  }
  const ir = parseResponse(answer.wire, parsed);
  answer.keepUsage(ir.usage);
  const body = JSON.stringify(emitResponse(answer.client, ir, answer.writerOpts));
  if (ctx.clientGone) {
    markClientAbort(ctx);
    return undefined;
  }
  addDecisionHeaders(headers, ctx, candidate);
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(upstream.statusCode, headers);
  res.end(body);
  ctx.bytesOut = Buffer.byteLength(body);
  return undefined;
}
