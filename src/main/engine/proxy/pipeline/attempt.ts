import type { UpstreamTimeouts } from '../../../../shared/contract';
import type { QueueRejection } from '../../resilience/flow';
import type { Classification } from '../../resilience/health';
import type { Candidate } from '../../routing/resolve';
import { AttemptCancel, type AttemptFailure, ClientAbortError } from '../../upstream/attempt';
import type { UpstreamResponse } from '../../upstream/pools';
import type { GatewayError } from '../../wire/client-errors';
import { AttemptHandle } from './attempt-handle';
import type { RequestContext } from './context';
import type { Decision } from './decision';
import type { PipelineDeps } from './deps';

/** A stage run before each upstream attempt; `settle` learns how the attempt ended. */
export interface AttemptStage {
  readonly name: string;
  enter(a: Attempt): Decision | Promise<Decision>;
  /** Called in reverse stage order once the attempt is over, for the stages it entered. */
  settle?(a: Attempt, outcome: AttemptOutcome): void;
}

/** What the attempt stages tell the dispatch beyond their decision. */
export interface DispatchState {
  readonly budgetEnd: number;
  /** The session the request belongs to (affinity), if it named one. */
  readonly session: string | null;
  /** The connection the session is pinned to: it holds the session's prompt cache. */
  readonly pinned: string | null;
  /** Attempts the breaker admitted so far. */
  attempted: number;
  /** The latest request-queue refusal: the answer when nothing was attempted. */
  queueRejection: QueueRejection | null;
  /** Why the request could not be put in a candidate's format, when that was the obstacle. */
  untranslatable: GatewayError | null;
  /** The request offers more tools than every target takes (learnt limits), when that was the obstacle. */
  tooManyTools: GatewayError | null;
  /**
   * A target said the prompt is longer than its window of this many tokens: only targets with a
   * larger window are tried after it (context-window.ts). Null until one said so.
   */
  contextFloor: number | null;
}

/** The latest upstream error answer, kept while failover goes on: the client gets it if nothing serves. */
export interface HeldError {
  candidate: Candidate;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  cls: Classification;
}

/**
 * A 400 no repair could answer here, that another target may not give: the dispatch fails over
 * on it (dispatch.ts) instead of relaying it.
 */
export type ShapeRefusal =
  /** The target takes at most `max` tools (now learnt). */
  | { readonly kind: 'tool_limit'; readonly max: number; readonly cause: string }
  /** The prompt does not fit the target's window (`limit` tokens, when the error says). */
  | { readonly kind: 'prompt_too_long'; readonly limit: number | null; readonly cause: string };

/** How the upstream call ended: an answer to relay, or why there is none. */
export type CallOutcome =
  /** The request queue's execution limit ended the attempt. */
  | { readonly kind: 'expired' }
  /** The client went away before the answer began. */
  | { readonly kind: 'gone' }
  /** No answer: network error or timeout. */
  | { readonly kind: 'unreachable'; readonly failure: AttemptFailure & { kind: 'network' } }
  /** An error answer (or an error event firstEvent a 200 stream), classified. */
  | {
      readonly kind: 'refused';
      readonly held: HeldError;
      readonly firstEvent: boolean;
      /** A refusal for the request's shape that another target may not give (shape.ts). */
      readonly shape: ShapeRefusal | null;
    }
  | { readonly kind: 'answered'; readonly upstream: UpstreamResponse };

/** How the attempt ended, once the relay is done with an answer. */
export type AttemptOutcome =
  | Exclude<CallOutcome, { kind: 'answered' }>
  /** Relayed to its end (a client leaving mid-answer included). */
  | { readonly kind: 'served' }
  /** The upstream broke the answer off after its head. */
  | { readonly kind: 'broke' }
  /** The throughput watchdog cut the stream; before any byte reached the client, or after. */
  | { readonly kind: 'tripped'; readonly beforeCommit: boolean };

/** One candidate's try: what the stages decided and hold for it. */
export class Attempt {
  readonly label: string;
  readonly cancel = new AttemptCancel();
  readonly handle: AttemptHandle;
  /** The provider's timeouts over the settings. */
  timeouts!: Readonly<UpstreamTimeouts>;
  /** How long the attempt may take, from the hold on (the failover budget caps it). */
  attemptMs = 0;
  /** When the breaker admitted the call, and the time it has from then. */
  startedAt = 0;
  remaining = 0;
  /** This call is the breaker's half-open probe. */
  probe = false;

  constructor(
    readonly ctx: RequestContext,
    readonly candidate: Candidate,
    readonly deps: PipelineDeps,
    readonly dispatch: DispatchState,
    /** When the candidate was picked. */
    readonly now: number,
  ) {
    this.label = `${candidate.target.label}@${candidate.connection.id}`;
    this.handle = new AttemptHandle(candidate, deps.resilience, deps.inFlight);
    ctx.abortAttempt = () => this.cancel.abort(new ClientAbortError());
  }
}
