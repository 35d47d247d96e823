import type { ServerResponse } from 'node:http';
import type { Candidate } from '../../routing/resolve';
import type { WireFormat } from '../../translate';
import type { UpstreamResponse } from '../../upstream/pools';
import type { GatewayError } from '../../wire/client-errors';
import { StreamWatch, type ThroughputTripError, WATCHDOG_ERROR_CLASS } from '../stream-watch';
import type { RequestContext } from './context';

/** The relay's watchdog for one upstream stream, when the watchdog is switched on. */
export function watchFor(
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
export function watchdogEnding(
  ctx: RequestContext,
  res: ServerResponse,
  /** The stream's closing error event in the client's format (with its sequence number). */
  ending: (err: GatewayError) => string,
  candidate: Candidate,
  trip: ThroughputTripError,
  beforeCommit: boolean,
  /** Leaves the stream open for a continuation (issue 28); false when none may follow. */
  hold?: (err: GatewayError) => boolean,
): 'retry' | undefined {
  ctx.errorClass = WATCHDOG_ERROR_CLASS;
  ctx.errorMessage = `${candidate.target.label}: ${trip.message}`;
  if (beforeCommit) return 'retry';
  const err: GatewayError = {
    status: 504,
    kind: 'timeout',
    code: 'upstream_throughput_too_low',
    message: `the stream from ${candidate.target.label} was cut: ${trip.message}`,
  };
  if (hold?.(err)) return undefined;
  res.end(ending(err));
  return undefined;
}
