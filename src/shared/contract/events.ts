import type { KeyLimitName } from './config';
import type {
  BreakerStateName,
  ConnectionStatus,
  LeaseView,
  LockoutView,
  RequestLogEntry,
  ShapeMechanism,
  TeamView,
} from './state';
import type { CacheLossReason } from './usage';

// ---------------------------------------------------------------------------
// Events: one stream for the dashboard, the tray and `/api/events`
// ---------------------------------------------------------------------------

interface EventBase {
  at: number;
}

export type EngineEvent =
  | (EventBase & { type: 'request.completed'; entry: RequestLogEntry })
  /** A 400 about the request's shape was repaired and the request sent again (one attempt). */
  | (EventBase & {
      type: 'shape.repaired';
      provider: string;
      connection: string;
      model: string;
      mechanism: ShapeMechanism;
      param: string;
      /** What was changed, as in the decision header. */
      change: string;
      cause: string;
    })
  /** A provider stated its maximum number of tools; requests with more skip it from now on. */
  | (EventBase & {
      type: 'shape.tool_limit';
      provider: string;
      model: string;
      max: number;
      cause: string;
    })
  /**
   * A target refused the request's shape in a way another may not (the prompt is longer than its
   * context window, more tools than it takes): the request failed over instead of ending.
   */
  | (EventBase & {
      type: 'shape.failover';
      provider: string;
      connection: string;
      model: string;
      mechanism: 'context' | 'tool_limit';
      /** What the dispatch did, as in the decision header. */
      change: string;
      cause: string;
    })
  /** Learnt fixes were cleared by an operator (`param` null: every fix of that model, or all). */
  | (EventBase & {
      type: 'shape.forgotten';
      provider: string | null;
      model: string | null;
      count: number;
      cause: string;
    })
  /** A web search the gateway ran for a model could not run (no backend, backend down). */
  | (EventBase & { type: 'websearch.unavailable'; backend: string | null; cause: string })
  | (EventBase & {
      type: 'config.changed';
      what: 'providers' | 'connections' | 'combos' | 'settings' | 'rules' | 'webSearch';
    })
  | (EventBase & { type: 'gateway.paused' | 'gateway.resumed' })
  /** The gateway listens on another address now (`baseUrl`); `from` was the old base URL. */
  | (EventBase & {
      type: 'gateway.moved';
      host: string;
      port: number;
      baseUrl: string;
      from: string;
    })
  | (EventBase & {
      type: 'breaker.transition';
      provider: string;
      from: BreakerStateName;
      to: BreakerStateName;
      cause: string;
    })
  | (EventBase & {
      type: 'connection.cooldown' | 'connection.terminal' | 'connection.recovered';
      provider: string;
      connection: string;
      status: ConnectionStatus;
      until: number | null;
      cause: string;
    })
  | (EventBase & { type: 'lockout.added' | 'lockout.cleared'; lockout: LockoutView; cause: string })
  | (EventBase & {
      type: 'queue.rejected';
      provider: string;
      connection: string;
      code: string;
      cause: string;
    })
  | (EventBase & { type: 'lease.acquired' | 'lease.ended'; lease: LeaseView; cause: string })
  | (EventBase & { type: 'provider.cooldown'; provider: string; until: number; cause: string })
  /** A provider's windowed cooldown ran out (announced by the read that noticed it). */
  | (EventBase & { type: 'provider.recovered'; provider: string; cause: string })
  /** A gateway key reached 80 % of one of its limits; once per key, limit and window. */
  | (EventBase & {
      type: 'budget.threshold';
      key: string;
      limit: KeyLimitName;
      used: number;
      max: number;
      resetsAt: number;
    })
  /**
   * A stream cut after text reached the client was continued (issue 28): `cutTarget` broke off
   * (`reason`, after `chars` characters of answer text), the continuation went to
   * `provider`/`connection`/`model`; `continuation` counts them within the stream.
   */
  | (EventBase & {
      type: 'stream.continued';
      provider: string;
      connection: string;
      model: string;
      cutTarget: string;
      reason: string;
      chars: number;
      continuation: number;
    })
  /** Team mode: the shared state became reachable again, or not (issue 16). */
  | (EventBase & { type: 'team.status'; team: TeamView })
  /**
   * A session's turn read far less from the prompt cache than the turn before left in it
   * (issue 30): `detail` says why, as the request log does.
   */
  | (EventBase & {
      type: 'cache.lost';
      session: string;
      /** The model the client asked for. */
      model: string;
      turn: number;
      connection: string;
      target: string;
      readTokens: number;
      expectedTokens: number;
      reason: CacheLossReason;
      detail: string;
    });

export type EngineEventType = EngineEvent['type'];
