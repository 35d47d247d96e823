import type { SentAnswer } from './sent';

export interface ContinuationInput {
  /** `streamContinuation.maxContinuations`; null when continuation is off. */
  readonly maxContinuations: number | null;
  /** Continuations this stream already had. */
  readonly used: number;
  /** Where the stream stood at the cut. */
  readonly at: SentAnswer['at'];
  /** Characters of answer text the client had at the cut. */
  readonly chars: number;
  /** The stream had said why it stopped before it broke. */
  readonly stopped: boolean;
  /** The break's error class. */
  readonly errorClass: string;
  /** The request's total deadline. */
  readonly deadline: number;
}

export type ContinuationDecision =
  /** Continue; on the same target when the failure looks transient, else on the next one. */
  | { readonly kind: 'continue'; readonly sameTarget: boolean }
  /** End the stream with its error event, as without continuation; `reason` says why. */
  | { readonly kind: 'end'; readonly reason: string };

/**
 * Failures that say nothing against the target: the connection went, it stalled, or the stream
 * just ended early. An error event, a watchdog cut or anything else moves to the next target.
 */
const TRANSIENT = /^(stream_network|stream_timeout_idle|upstream_stream_incomplete)$/;

/** Whether a stream cut after text reached the client is continued, and where. */
export function decideContinuation(input: ContinuationInput, now: number): ContinuationDecision {
  if (input.maxContinuations === null) return { kind: 'end', reason: 'continuation is off' };
  if (input.stopped) return { kind: 'end', reason: 'the answer had already stopped' };
  if (input.used >= input.maxContinuations) {
    return {
      kind: 'end',
      reason: `streamContinuation.maxContinuations (${input.maxContinuations}) used up`,
    };
  }
  if (input.errorClass === 'stream_timeout_total' || now >= input.deadline)
    return { kind: 'end', reason: 'the total deadline passed' };
  // A tool call held back unseen is asked for again even when no text came before it.
  if (input.chars === 0 && input.at === 'text') {
    return { kind: 'end', reason: 'no answer text had reached the client' };
  }
  if (input.at === 'tool') return { kind: 'end', reason: 'the cut fell inside a tool call' };
  if (input.at === 'thinking') {
    return { kind: 'end', reason: 'the cut fell inside thinking whose signature never arrived' };
  }
  return { kind: 'continue', sameTarget: TRANSIENT.test(input.errorClass) };
}
