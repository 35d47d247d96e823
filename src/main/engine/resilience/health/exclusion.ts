import type { Candidate } from '../../routing/resolve';
import { isTerminal } from './connection-cooldown';
import { NO_FAMILIES } from './model-lockout';
import { lockoutReprobeDue, type ReprobePermits, reprobeDue } from './reprobe';
import type { ResilienceState } from './resilience-state';

/** Why routing skipped a candidate (RESILIENCE.md §8). `retryAfterMs` null: needs an operator. */
export interface Exclusion {
  reason: 'circuit_open' | 'provider_cooldown' | 'unavailable' | 'model_lockout';
  retryAfterMs: number | null;
  detail: string;
  /** For a cooling connection: the error type that cooled it. */
  errorType?: string | null;
}

/**
 * Re-probing long cooldowns and lockouts: the interval (`cooldown.reprobeAfterMs`) and the
 * permits out, by connection and by lockout key.
 */
export interface Reprobe {
  intervalMs: number;
  permits: ReprobePermits;
  lockoutPermits: ReprobePermits;
}

/**
 * Why this candidate may not be dispatched now, or null. Reads only (it takes no probe), though
 * a read ends what has expired. Order: the widest scope first, so diagnostics name the real cause.
 * A long cooldown or lockout due for a re-probe with no probe out is no exclusion: the admission
 * takes it.
 */
export function exclusionOf(
  state: ResilienceState,
  providerCooldownEnabled: boolean,
  reprobe: Reprobe,
  c: Candidate,
  now: number,
): Exclusion | null {
  const provider = c.target.provider;
  const breaker = state.breaker(provider);
  const circuit = breaker.status(now);
  if (circuit === 'OPEN' || (circuit === 'HALF_OPEN' && !breaker.wouldAdmit(now))) {
    return {
      reason: 'circuit_open',
      retryAfterMs: breaker.retryAfterMs(now),
      detail: `circuit of ${provider.id} is ${circuit === 'OPEN' ? 'open' : 'half-open with a probe in flight'}`,
    };
  }
  if (providerCooldownEnabled) {
    const until = state.existingProviderCooldown(provider.id)?.until(now) ?? null;
    if (until !== null) {
      return {
        reason: 'provider_cooldown',
        retryAfterMs: until - now,
        detail: `${provider.id} is cooling down`,
      };
    }
  }
  const h = state.healthOf(c.connection, now);
  if (isTerminal(h.status)) {
    return {
      reason: 'unavailable',
      retryAfterMs: null,
      detail: `connection ${c.connection.id} is ${h.status}`,
    };
  }
  if (
    h.status === 'unavailable' &&
    h.rateLimitedUntil !== null &&
    !(reprobeDue(h, reprobe.intervalMs, now) && !reprobe.permits.taken(c.connection.id, now))
  ) {
    return {
      reason: 'unavailable',
      retryAfterMs: h.rateLimitedUntil - now,
      detail: `connection ${c.connection.id} is cooling down (${h.lastErrorType ?? 'error'})`,
      errorType: h.lastErrorType,
    };
  }
  const lock = state.lockouts.check(
    provider.id,
    c.connection.id,
    c.target.model,
    provider.options?.quotaFamilies ?? NO_FAMILIES,
    now,
  );
  if (
    lock &&
    !(
      lockoutReprobeDue(lock, reprobe.intervalMs, now) &&
      !reprobe.lockoutPermits.taken(lock.key, now)
    )
  ) {
    return {
      reason: 'model_lockout',
      retryAfterMs: lock.expiresAt - now,
      detail: `${lock.scope === 'family' ? `quota family ${lock.subject}` : c.target.model} is locked on ${c.connection.id} (${lock.reason})`,
    };
  }
  return null;
}
