import type { ClientFormat } from './config';

// ---------------------------------------------------------------------------
// Live state
// ---------------------------------------------------------------------------

export type BreakerStateName = 'CLOSED' | 'DEGRADED' | 'OPEN' | 'HALF_OPEN';

export interface BreakerTransition {
  at: number;
  from: BreakerStateName;
  to: BreakerStateName;
  cause: string;
}

export interface BreakerView {
  provider: string;
  state: BreakerStateName;
  failureCount: number;
  retryAfterMs: number;
  history: BreakerTransition[];
  /** End of the windowed provider cooldown (RESILIENCE.md §1, optional mechanism), if cooling. */
  cooldownUntil?: number | null;
}

export type ConnectionStatus =
  | 'active'
  | 'unavailable'
  | 'disabled'
  | 'banned'
  | 'expired'
  | 'credits_exhausted';

export interface ConnectionStateView {
  id: string;
  provider: string;
  status: ConnectionStatus;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastError: string | null;
  errorCode: string | null;
  inFlight: number;
  maxConcurrent: number | null;
  /**
   * Anthropic subscription low-priority lane (RESILIENCE.md §2): `slow` while requests carry
   * `anthropic-usage-limit: slow`, `refused` while re-accepting it is refused; null otherwise.
   */
  lane?: 'slow' | 'refused' | null;
  laneUntil?: number | null;
}

export type LockoutScope = 'family' | 'model' | 'exact';

export interface LockoutView {
  provider: string;
  connection: string;
  model: string;
  scope: LockoutScope;
  reason: string;
  failureCount: number;
  expiresAt: number;
}

export interface QueueView {
  provider: string;
  connection: string;
  running: number;
  queued: number;
  rejected: number;
}

export type LeaseStateName = 'ACTIVE' | 'RELEASED' | 'EXPIRED' | 'INVALIDATED';

export interface LeaseView {
  connection: string;
  generation: number;
  state: LeaseStateName;
  expiresAt: number;
}

export interface SessionView {
  session: string;
  connection: string;
  expiresAt: number;
}

export interface GatewayView {
  version: string;
  host: string;
  port: number;
  baseUrl: string;
  startedAt: number;
  paused: boolean;
  /** The combo the model "default" routes to (setting `routing.activeCombo`); null when none. */
  activeCombo?: string | null;
  requestsTotal: number;
  errorsTotal: number;
  inFlight: number;
}

/** Which request-shape repair acted (issue 17). */
export type ShapeMechanism = 'parameter' | 'effort' | 'tool_limit' | 'context';

/** A request-shape fix learnt from a provider's 400, applied to that provider and model from then on. */
export interface LearnedFixView {
  provider: string;
  model: string;
  param: string;
  mechanism: ShapeMechanism;
  /** What it does: `drop temperature`, `rename max_tokens to max_completion_tokens`, … */
  fix: string;
  /** The upstream's words that taught it (an excerpt, no secrets). */
  cause: string;
  learnedAt: number;
}

/** One limit an upstream announced: what is left of how much, and when it refills (epoch ms). */
export interface QuotaWindowView {
  remaining: number | null;
  limit: number | null;
  resetAt: number | null;
}

/**
 * The last quota a connection's upstream announced in its rate-limit headers (`x-ratelimit-*`,
 * `anthropic-ratelimit-*`; subscription accounts' unified 5-hour and weekly windows as percent
 * left of 100). Kept across restarts; `learnedAt` says how fresh it is.
 */
export interface ConnectionQuotaView {
  connection: string;
  provider: string;
  learnedAt: number;
  requests: QuotaWindowView | null;
  tokens: QuotaWindowView | null;
  /** Anthropic's separate input- and output-token limits. */
  inputTokens: QuotaWindowView | null;
  outputTokens: QuotaWindowView | null;
  fiveHour: QuotaWindowView | null;
  weekly: QuotaWindowView | null;
}

export interface Snapshot {
  at: number;
  gateway: GatewayView;
  breakers: BreakerView[];
  connections: ConnectionStateView[];
  lockouts: LockoutView[];
  queues: QueueView[];
  leases: LeaseView[];
  sessions: SessionView[];
  /** Request-shape fixes learnt from providers' 400s (issue 17). */
  learnedFixes?: LearnedFixView[];
  /** What each connection's upstream last announced of its rate limits (issue 14). */
  quotas?: ConnectionQuotaView[];
  /** Where the shared resilience state lives (issue 16, team mode). */
  team?: TeamView;
  /** Requests waiting for a quota reset instead of failing (issue 29). */
  quotaWaits?: QuotaWaitView[];
}

/** One request waiting for the earliest end of what keeps its targets from serving. */
export interface QuotaWaitView {
  id: string;
  /** The model the client asked for. */
  model: string;
  /** The gateway API key's name, null when keys are not configured. */
  key: string | null;
  since: number;
  /** When the obstacle waited for ends. */
  until: number;
  /** `quota_exhausted`, `rate_limit_exceeded`, `model_lockout`, `circuit_open`, … */
  reason: string;
  /** What is waited for: a connection id (a provider id for its circuit). */
  subject: string;
}

/** The state backend: `local` (this process and its SQLite), or `redis` shared by a team. */
export interface TeamView {
  backend: 'local' | 'redis';
  /** `degraded`: Redis is unreachable; this instance serves on its local state meanwhile. */
  status: 'connected' | 'degraded';
}

// ---------------------------------------------------------------------------
// Request log
// ---------------------------------------------------------------------------

export interface RequestLogEntry {
  id: number;
  at: number;
  clientFormat: ClientFormat;
  modelRequested: string;
  /** `provider/model` that served (or last failed) the request; null when nothing was tried. */
  target: string | null;
  provider: string | null;
  connection: string | null;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  stream: boolean;
  bytesIn: number;
  bytesOut: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  /** Short machine-readable class, e.g. `upstream_5xx`, `network`, `client_abort`, `no_route`. */
  errorClass: string | null;
  errorMessage: string | null;
  /** How routing got there, e.g. `combo coder: anthropic/… failed (503), openai/… served`. */
  decision: string | null;
  /** Address this machine used to reach the upstream (per-connection egress IP). */
  egressIp: string | null;
  /** The gateway API key the request presented (its name), when keys are in use. */
  keyName?: string | null;
  cacheWriteTokens?: number | null;
  reasoningTokens?: number | null;
  /** From the model price table; null when the model has no price. */
  costUsd?: number | null;
}
