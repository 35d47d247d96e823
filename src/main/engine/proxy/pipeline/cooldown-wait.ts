import type { CooldownWaitSettings } from './deps';

/** A candidate passed over, as the wait decision sees it. */
export interface PassedOver {
  reason: string;
  retryAfterMs: number | null;
  /** For a cooling connection: the error type that cooled it. */
  errorType: string | null;
}

export interface CooldownWaitInput {
  settings: Readonly<CooldownWaitSettings>;
  /** Waits already made for this request, and their total. */
  waits: number;
  waited: number;
  attempted: number;
  excluded: readonly PassedOver[];
  /** The last attempt failed on the network (never waited for). */
  networkFailure: boolean;
  /** The error answer held for the client, if the last failure was one. */
  held: { status: number; reason: string } | null;
  /** The held answer's connection: how long until it may serve again (read only when needed). */
  heldRetryAfterMs(): number | null;
  now: number;
  budgetEnd: number;
}

/**
 * Cooldown-aware retry (`comboCooldownWait`): how long to wait before dispatching again, or
 * null to answer now. Only a short cooldown caused by a rate limit is waited for, never quota
 * exhaustion, auth or not-found; the wait must fit the per-wait cap, the request's wait budget
 * and its failover budget. Pure.
 */
export function cooldownWaitMs(input: CooldownWaitInput): number | null {
  const { settings: s, excluded, held } = input;
  if (!s.enabled || input.waits >= s.maxAttempts || input.attempted + excluded.length === 0)
    return null;
  if (input.networkFailure) return null;
  const rateLimited = (e: PassedOver) =>
    e.reason === 'unavailable' && e.errorType === 'rate_limit_exceeded';
  let waitMs: number;
  if (held) {
    if (held.status !== 429 || held.reason !== 'rate_limit_exceeded') return null;
    // Every other candidate was also out for a short rate limit, or tried and failed like this.
    if (!excluded.every(rateLimited)) return null;
    const timed = excluded.map((e) => e.retryAfterMs!).filter((ms) => ms > 0);
    const announced = input.heldRetryAfterMs();
    const all = announced !== null ? [...timed, announced] : timed;
    if (all.length === 0) return null;
    waitMs = Math.min(...all);
  } else {
    if (excluded.length === 0 || !excluded.every(rateLimited)) return null;
    waitMs = Math.min(...excluded.map((e) => e.retryAfterMs!));
  }
  if (waitMs > s.maxWaitMs || input.waited + waitMs > s.budgetMs) return null;
  if (input.now + waitMs >= input.budgetEnd) return null;
  return Math.max(1, waitMs);
}
