import type { Candidate } from '../../routing/resolve';
import { type CancelState, classifyAttemptError } from '../../upstream/attempt';
import type { GatewayError } from '../../wire/client-errors';
import { markClientAbort, type RequestContext } from './context';

/**
 * An upstream answer that broke off while it was relayed: records why on the request and hands
 * back the failure's message, or null when it was the client that left (nothing more to write).
 */
export function recordBreak(
  ctx: RequestContext,
  err: unknown,
  signal: CancelState,
  candidate: Candidate,
): string | null {
  const failure = classifyAttemptError(err, signal);
  if (failure.kind === 'client_abort' || ctx.clientGone) {
    markClientAbort(ctx);
    return null;
  }
  ctx.errorClass = `stream_${failure.errorClass}`;
  ctx.errorMessage = `${candidate.target.label}: ${failure.message} after ${ctx.bytesOut} bytes`;
  return failure.message;
}

/** A stream's closing error when its upstream broke off; the status line is already gone. */
export function streamInterrupted(candidate: Candidate, detail: string | null): GatewayError {
  return {
    status: 502,
    kind: 'upstream',
    code: 'upstream_stream_interrupted',
    message: `the upstream stream from ${candidate.target.label} broke off: ${detail}`,
  };
}

/**
 * The upstream broke its answer after the head (reset, stall, an error event mid-stream, a body
 * that is not what it claimed): a provider failure, not a success.
 */
export function brokeOffUpstream(errorClass: string | null): boolean {
  return (
    errorClass !== null &&
    (errorClass.startsWith('stream_') ||
      errorClass === 'upstream_stream_error' ||
      errorClass === 'upstream_invalid_response')
  );
}
