// Anthropic subscription accounts: the low-priority lane (RESILIENCE.md §2, "Anthropic
// subscription accounts"). Pure: the caller passes the time, the random draw for jitter and the
// parsed response headers; this module says what happens to the lane and to the request.

/** Sent upstream on every request of a connection whose lane is accepted. */
export const SLOW_HEADER = 'anthropic-usage-limit';
export const SLOW_HEADER_VALUE = 'slow';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The numbers of the spec; every one is named there. */
export const LANE_LIMITS = {
  /** The header is sent until the announced 5-hour reset plus this. */
  afterResetMs: 60 * SECOND,
  slowRetryAfter: { defaultMs: 20 * SECOND, minMs: 5 * SECOND, maxMs: 600 * SECOND },
  /** ± share of the announced slow retry-after. */
  jitter: 0.3,
  slowMaxWait: { defaultMs: 20 * MINUTE, minMs: MINUTE, maxMs: 6 * HOUR },
  /** Waits end this long before the request's own upstream deadline. */
  deadlineMarginMs: 5 * SECOND,
  /** After `max_wait`, the lane is not accepted again for this long. */
  refuseAfterMaxWaitMs: 10 * MINUTE,
  /** `budget_exhausted` is remembered until the announced budget reset, at most this. */
  budgetMemoryMaxMs: 8 * DAY,
  /** (Breakwater) A rejected 429 without `…-unified-reset`: the longest a 5-hour window lasts. */
  windowFallbackMs: 5 * HOUR,
  /** (Breakwater) Resets closer than this are the same 5-hour window (they are whole seconds). */
  windowToleranceMs: SECOND,
} as const;

/** The unified rate-limit headers of one response, parsed. */
export interface UnifiedSignal {
  /** `anthropic-ratelimit-unified-status` (`allowed`, `allowed_warning`, `rejected`, …). */
  status: string | null;
  /** `anthropic-ratelimit-unified-reset` as epoch ms (sent as epoch seconds). */
  reset: number | null;
  /** `anthropic-ratelimit-unified-slow-offer`: `treatment` when the account may use the lane. */
  slowOffer: string | null;
  /** `anthropic-ratelimit-unified-slow-status`. */
  slowStatus: string | null;
  /** `anthropic-ratelimit-unified-slow-retry-after`, in ms, unclamped. */
  slowRetryAfterMs: number | null;
  /** `anthropic-ratelimit-unified-slow-max-wait`, in ms, unclamped. */
  slowMaxWaitMs: number | null;
  /** `anthropic-ratelimit-unified-overage-in-use: true`. */
  overageInUse: boolean;
  /** (Breakwater) `anthropic-ratelimit-unified-slow-budget-reset`, epoch ms: when a spent budget returns. */
  budgetReset: number | null;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | null {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined ? null : s.trim();
}

/** Epoch seconds (what Anthropic sends), epoch ms, or an HTTP/ISO date. */
export function parseInstant(value: string | null): number | null {
  if (value === null || value === '') return null;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    return n < 1e12 ? Math.round(n * SECOND) : Math.round(n);
  }
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

/** Seconds, possibly fractional; anything else is absent. */
function parseSeconds(value: string | null): number | null {
  if (value === null || !/^\d+(\.\d+)?$/.test(value)) return null;
  return Math.round(Number(value) * SECOND);
}

export function readUnified(headers: Headers): UnifiedSignal {
  const u = (suffix: string) => header(headers, `anthropic-ratelimit-unified-${suffix}`);
  return {
    status: u('status')?.toLowerCase() ?? null,
    reset: parseInstant(u('reset')),
    slowOffer: u('slow-offer')?.toLowerCase() ?? null,
    slowStatus: u('slow-status')?.toLowerCase() ?? null,
    slowRetryAfterMs: parseSeconds(u('slow-retry-after')),
    slowMaxWaitMs: parseSeconds(u('slow-max-wait')),
    overageInUse: u('overage-in-use')?.toLowerCase() === 'true',
    budgetReset: parseInstant(u('slow-budget-reset')),
  };
}

/** The 5-hour usage limit: the only 429 either feature acts on. */
export function isUsageLimit(status: number, signal: UnifiedSignal): boolean {
  return status === 429 && signal.status === 'rejected';
}

/** Lane state of one connection. `idle` is never stored. */
export type LaneState =
  | { kind: 'idle' }
  | { kind: 'accepted'; since: number; windowReset: number; until: number }
  | { kind: 'refused'; reason: 'max_wait' | 'budget_exhausted'; until: number };

export const IDLE: LaneState = { kind: 'idle' };

export type LaneCloseReason =
  | 'expired'
  | 'max_wait'
  | 'weekly_limit'
  | 'budget_exhausted'
  | 'off'
  | 'ineligible'
  | 'window_changed'
  | 'extra_usage';

export type LaneChange =
  | { kind: 'accepted'; until: number }
  | { kind: 'closed'; reason: LaneCloseReason; refusedUntil: number | null }
  | { kind: 'refusal_ended' };

/** Lazy recovery: an accepted lane past its end, or a refusal past its end, is idle again. */
export function currentLane(
  state: LaneState,
  now: number,
): { state: LaneState; change: LaneChange | null } {
  if (state.kind === 'accepted' && now >= state.until) {
    return { state: IDLE, change: { kind: 'closed', reason: 'expired', refusedUntil: null } };
  }
  if (state.kind === 'refused' && now >= state.until) {
    return { state: IDLE, change: { kind: 'refusal_ended' } };
  }
  return { state, change: null };
}

/** True while requests of the connection carry `anthropic-usage-limit: slow`. */
export function laneAccepted(state: LaneState, now: number): boolean {
  return state.kind === 'accepted' && now < state.until;
}

/** The announced slow retry-after (default 20 s), clamped to 5–600 s, then ±30 % jitter. */
export function slowRetryDelayMs(announcedMs: number | null, random: number): number {
  const { defaultMs, minMs, maxMs } = LANE_LIMITS.slowRetryAfter;
  const base = Math.min(maxMs, Math.max(minMs, announcedMs ?? defaultMs));
  const r = Math.min(1, Math.max(0, random));
  return Math.round(base * (1 + (2 * r - 1) * LANE_LIMITS.jitter));
}

/** The announced slow max-wait (default 20 min), clamped to 1 min–6 h. */
export function slowMaxWaitMs(announcedMs: number | null): number {
  const { defaultMs, minMs, maxMs } = LANE_LIMITS.slowMaxWait;
  return Math.min(maxMs, Math.max(minMs, announcedMs ?? defaultMs));
}

export interface LaneInput {
  /** The connection's state, already promoted with `currentLane`. */
  state: LaneState;
  /** `lowPriorityMode` of the connection. */
  enabled: boolean;
  /** HTTP status of the response. */
  status: number;
  signal: UnifiedSignal;
  /** Time this request already spent waiting in the lane. */
  waitedMs: number;
  /** The request's own upstream deadline (epoch ms). */
  deadlineAt: number;
  /** One draw in [0, 1) for the jitter. */
  random: number;
}

/** `pass`: the response goes on as it is (relayed, or classified and cooled as usual). */
export type LaneOutcome = { kind: 'pass' } | { kind: 'retry'; afterMs: number };

export interface LaneDecision {
  next: LaneState;
  outcome: LaneOutcome;
  /** Exactly one change per transition, for the log; null when the state stayed. */
  change: LaneChange | null;
}

const PASS: LaneOutcome = { kind: 'pass' };
const CLOSING_STATUSES = new Set(['weekly_limit', 'budget_exhausted', 'off', 'ineligible']);

function closed(reason: LaneCloseReason, next: LaneState): LaneDecision {
  const refusedUntil = next.kind === 'refused' ? next.until : null;
  return { next, outcome: PASS, change: { kind: 'closed', reason, refusedUntil } };
}

function budgetRefusal(signal: UnifiedSignal, now: number): LaneState {
  const cap = now + LANE_LIMITS.budgetMemoryMaxMs;
  const until =
    signal.budgetReset !== null && signal.budgetReset > now
      ? Math.min(signal.budgetReset, cap)
      : cap;
  return { kind: 'refused', reason: 'budget_exhausted', until };
}

/**
 * What one upstream response means for the lane of its connection. Called for every response of
 * a connection with `lowPriorityMode`; the 5-hour limit 429 may put the lane in `accepted`, later
 * responses keep it, make the request wait and retry, or close it.
 */
export function decideLane(input: LaneInput, now: number): LaneDecision {
  const { state, signal, status } = input;
  if (!input.enabled) return { next: state, outcome: PASS, change: null };

  if (state.kind === 'accepted') {
    // Paid overage covers the usage now: the lane is pointless, whatever the status says.
    if (signal.overageInUse) return closed('extra_usage', IDLE);
    const slow = signal.slowStatus;
    if (slow !== null && CLOSING_STATUSES.has(slow)) {
      if (slow === 'budget_exhausted')
        return closed('budget_exhausted', budgetRefusal(signal, now));
      return closed(slow as LaneCloseReason, IDLE);
    }
    if (
      signal.reset !== null &&
      Math.abs(signal.reset - state.windowReset) > LANE_LIMITS.windowToleranceMs
    ) {
      return closed('window_changed', IDLE);
    }
    if ((status === 429 && slow === 'slot_busy') || status === 529) {
      const afterMs = slowRetryDelayMs(signal.slowRetryAfterMs, input.random);
      const withinMaxWait = input.waitedMs + afterMs < slowMaxWaitMs(signal.slowMaxWaitMs);
      const withinDeadline = now + afterMs < input.deadlineAt - LANE_LIMITS.deadlineMarginMs;
      if (withinMaxWait && withinDeadline)
        return { next: state, outcome: { kind: 'retry', afterMs }, change: null };
      return closed('max_wait', {
        kind: 'refused',
        reason: 'max_wait',
        until: now + LANE_LIMITS.refuseAfterMaxWaitMs,
      });
    }
    // `active`, `not_needed`, or nothing said: the lane stays.
    return { next: state, outcome: PASS, change: null };
  }

  // Not in the lane: only the 5-hour limit 429 with the offer opens it.
  if (!isUsageLimit(status, signal)) return { next: state, outcome: PASS, change: null };
  if (state.kind === 'refused') return { next: state, outcome: PASS, change: null };
  if (signal.slowOffer !== 'treatment' || signal.overageInUse) {
    return { next: state, outcome: PASS, change: null };
  }
  if (signal.slowStatus === 'budget_exhausted')
    return closed('budget_exhausted', budgetRefusal(signal, now));
  if (signal.slowStatus !== null && CLOSING_STATUSES.has(signal.slowStatus)) {
    return { next: state, outcome: PASS, change: null };
  }
  const windowReset = signal.reset ?? now + LANE_LIMITS.windowFallbackMs;
  const until = windowReset + LANE_LIMITS.afterResetMs;
  if (until <= now) return { next: state, outcome: PASS, change: null };
  return {
    next: { kind: 'accepted', since: now, windowReset, until },
    outcome: { kind: 'retry', afterMs: 0 },
    change: { kind: 'accepted', until },
  };
}

/** A stored lane state read back; anything malformed is idle. */
export function restoreLane(value: unknown): LaneState {
  if (typeof value !== 'object' || value === null) return IDLE;
  const v = value as Record<string, unknown>;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (v.kind === 'accepted' && num(v.since) && num(v.windowReset) && num(v.until)) {
    return {
      kind: 'accepted',
      since: v.since as number,
      windowReset: v.windowReset as number,
      until: v.until as number,
    };
  }
  if (
    v.kind === 'refused' &&
    (v.reason === 'max_wait' || v.reason === 'budget_exhausted') &&
    num(v.until)
  ) {
    return { kind: 'refused', reason: v.reason, until: v.until as number };
  }
  return IDLE;
}
