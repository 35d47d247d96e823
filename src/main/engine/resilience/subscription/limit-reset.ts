// Anthropic subscription accounts: the limit reset (RESILIENCE.md §2, `autoLimitReset`).
// Pure: reads the two endpoint answers and says whether to retry and when to try again.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const LIMIT_RESET = {
  /** The program both endpoints name. */
  program: 'juniper_tide',
  /** `already_used` / `not_offered` without `next_available_at`: a reset is weekly. */
  defaultNextAvailableMs: 7 * DAY,
  /** Any failure (network, non-2xx, unreadable answer): not tried again for this long. */
  afterFailureMs: 15 * MINUTE,
  /** Each of the two calls. */
  callTimeoutMs: 10_000,
} as const;

/** Per connection. `ready` is never stored. */
export type LimitResetState =
  | { kind: 'ready' }
  | { kind: 'blocked'; reason: 'used' | 'already_used' | 'not_offered' | 'failure'; until: number };

export const READY: LimitResetState = { kind: 'ready' };

/** Lazy recovery: a block past its end is ready again. */
export function currentLimitReset(state: LimitResetState, now: number): LimitResetState {
  return state.kind === 'blocked' && now >= state.until ? READY : state;
}

export function canTryLimitReset(state: LimitResetState, now: number): boolean {
  return currentLimitReset(state, now).kind === 'ready';
}

/** The result of one step of the limit reset. */
export type LimitResetStep =
  /** Usage says a reset is available: call `reset_rate_limits`. */
  | { kind: 'call' }
  /** The limit is lifted: retry at full speed, without the slow header. */
  | { kind: 'retry'; next: LimitResetState; result: string }
  /** No reset now; `next` says until when. */
  | { kind: 'unavailable'; next: LimitResetState; result: string };

function instant(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return value < 1e12 ? Math.round(value * 1000) : Math.round(value);
  }
  if (typeof value === 'string' && value !== '') {
    if (/^\d+(\.\d+)?$/.test(value)) return instant(Number(value));
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

function nextAvailable(
  reason: 'used' | 'already_used' | 'not_offered',
  announced: unknown,
  now: number,
): LimitResetState {
  const at = instant(announced);
  return {
    kind: 'blocked',
    reason,
    until: at !== null && at > now ? at : now + LIMIT_RESET.defaultNextAvailableMs,
  };
}

export function failedLimitReset(now: number): Extract<LimitResetState, { kind: 'blocked' }> {
  return { kind: 'blocked', reason: 'failure', until: now + LIMIT_RESET.afterFailureMs };
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * `GET /api/oauth/usage?at_wall=1&skip_spend=1`: its `juniper_tide` block. `arm: "reset"` with
 * `available: true` → call the reset; otherwise not now (until its `next_available_at`, default a
 * week). Null: the answer is not what the endpoint returns (a failure).
 */
export function readUsage(body: unknown, now: number): LimitResetStep | null {
  const root = record(body);
  if (!root) return null;
  const block = record(root[LIMIT_RESET.program]);
  if (!block)
    return {
      kind: 'unavailable',
      next: nextAvailable('not_offered', null, now),
      result: 'not_offered',
    };
  if (block.arm === 'reset' && block.available === true) return { kind: 'call' };
  const reason = block.arm === 'reset' ? 'already_used' : 'not_offered';
  return {
    kind: 'unavailable',
    next: nextAvailable(reason, block.next_available_at, now),
    result: reason,
  };
}

/**
 * `POST /api/organizations/{orgUUID}/reset_rate_limits`: `result` (or `status`) `reset` /
 * `not_limited` → retry at full speed; `already_used` / `not_offered` → not before
 * `next_available_at` (default a week). Null: anything else (a failure).
 */
export function readResetResult(body: unknown, now: number): LimitResetStep | null {
  const root = record(body);
  if (!root) return null;
  const result = root.result ?? root.status;
  switch (result) {
    case 'reset':
      // Once a week: the next one is not available before its announced time.
      return { kind: 'retry', next: nextAvailable('used', root.next_available_at, now), result };
    case 'not_limited':
      return { kind: 'retry', next: READY, result };
    case 'already_used':
    case 'not_offered':
      return {
        kind: 'unavailable',
        next: nextAvailable(result, root.next_available_at, now),
        result,
      };
    default:
      return null;
  }
}

/** A stored state read back; anything malformed is ready. */
export function restoreLimitReset(value: unknown): LimitResetState {
  const v = record(value);
  if (
    v?.kind === 'blocked' &&
    (v.reason === 'used' ||
      v.reason === 'already_used' ||
      v.reason === 'not_offered' ||
      v.reason === 'failure') &&
    typeof v.until === 'number'
  ) {
    return { kind: 'blocked', reason: v.reason, until: v.until };
  }
  return READY;
}
