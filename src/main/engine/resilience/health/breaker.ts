import type { BreakerStateName, BreakerTransition } from '../../../../shared/contract';
import type { BreakerProfile } from '../../settings/resilience-defaults';
import type { BreakerSnapshot, BreakerState } from '../../store/state-records';

/** Consecutive failed probes double the reset timeout up to this multiple of the base. */
export const MAX_RESET_MULTIPLIER = 16;
export const HISTORY_LIMIT = 20;

export function degradationThreshold(profile: BreakerProfile): number {
  return profile.degradationThreshold > 0
    ? profile.degradationThreshold
    : Math.max(1, Math.floor(0.6 * profile.failureThreshold));
}

export type Admission =
  | { allowed: true; probe: boolean }
  | { allowed: false; retryAfterMs: number };

export type TransitionListener = (t: BreakerTransition) => void;

/**
 * A provider's circuit breaker. Time is an argument of every call; reads promote an OPEN
 * state whose reset time has passed (lazy recovery, no timers). Every state change goes through
 * `move`, which records history and notifies exactly once.
 */
export class CircuitBreaker {
  private state: BreakerState;
  private readonly history: BreakerTransition[];

  constructor(
    readonly provider: string,
    private profile: BreakerProfile,
    private readonly onTransition: TransitionListener = () => {},
    restored?: BreakerSnapshot,
  ) {
    this.state = restored ? { ...restored.state } : { name: 'CLOSED', failures: 0 };
    this.history = restored ? restored.history.slice(-HISTORY_LIMIT) : [];
  }

  setProfile(profile: BreakerProfile): void {
    this.profile = profile;
  }

  private move(next: BreakerState, now: number, cause: string): void {
    const from = this.state.name;
    this.state = next;
    if (from === next.name) return;
    const t: BreakerTransition = { at: now, from, to: next.name, cause };
    this.history.push(t);
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
    this.onTransition(t);
  }

  private promote(now: number): void {
    const s = this.state;
    if (s.name === 'OPEN' && now >= s.openedAt + s.resetTimeoutMs) {
      this.move(
        {
          name: 'HALF_OPEN',
          failures: s.failures,
          resetTimeoutMs: s.resetTimeoutMs,
          failedProbes: s.failedProbes,
          probeUntil: null,
        },
        now,
        `reset timeout of ${Math.round(s.resetTimeoutMs / 1000)} s passed`,
      );
    }
  }

  status(now: number): BreakerStateName {
    this.promote(now);
    return this.state.name;
  }

  failureCount(now: number): number {
    this.promote(now);
    return this.state.failures;
  }

  /** How long until a request may be admitted (0 when it may be now). */
  retryAfterMs(now: number): number {
    this.promote(now);
    const s = this.state;
    if (s.name === 'OPEN') return Math.max(0, s.openedAt + s.resetTimeoutMs - now);
    if (s.name === 'HALF_OPEN' && s.probeUntil !== null && s.probeUntil > now)
      return s.probeUntil - now;
    return 0;
  }

  /** Whether a request could be admitted now, without taking the probe. */
  wouldAdmit(now: number): boolean {
    return this.retryAfterMs(now) === 0;
  }

  /**
   * Admits a request. In HALF_OPEN exactly one probe is out at a time; its permit expires at
   * `probeDeadline` (the request's own deadline), so a probe that never settles cannot wedge
   * the breaker.
   */
  admit(now: number, probeDeadline: number): Admission {
    this.promote(now);
    const s = this.state;
    if (s.name === 'OPEN')
      return { allowed: false, retryAfterMs: s.openedAt + s.resetTimeoutMs - now };
    if (s.name === 'HALF_OPEN') {
      if (s.probeUntil !== null && s.probeUntil > now)
        return { allowed: false, retryAfterMs: s.probeUntil - now };
      this.state = { ...s, probeUntil: Math.max(probeDeadline, now + 1) };
      return { allowed: true, probe: true };
    }
    return { allowed: true, probe: false };
  }

  /** A provider-level success. */
  recordSuccess(now: number, probe: boolean): void {
    this.promote(now);
    const s = this.state;
    if (s.name === 'HALF_OPEN') {
      if (probe) this.move({ name: 'CLOSED', failures: 0 }, now, 'probe succeeded');
      return;
    }
    if (s.name === 'OPEN') return; // a straggler admitted before the circuit opened
    const failures = Math.max(0, s.failures - 1);
    if (s.name === 'DEGRADED' && failures < degradationThreshold(this.profile)) {
      this.move({ name: 'CLOSED', failures }, now, 'failures fell below the degraded threshold');
    } else if (failures !== s.failures) {
      this.state = { ...s, failures };
    }
  }

  /** A provider-level failure (408/5xx/network); `cause` names it for history and events. */
  recordFailure(now: number, probe: boolean, cause: string): void {
    this.promote(now);
    const s = this.state;
    if (s.name === 'HALF_OPEN') {
      if (!probe) return;
      const base = this.profile.resetTimeoutMs;
      const resetTimeoutMs = Math.min(
        base * MAX_RESET_MULTIPLIER,
        Math.max(base, s.resetTimeoutMs * 2),
      );
      this.move(
        {
          name: 'OPEN',
          failures: s.failures,
          openedAt: now,
          resetTimeoutMs,
          failedProbes: s.failedProbes + 1,
        },
        now,
        `probe failed: ${cause}`,
      );
      return;
    }
    if (s.name === 'OPEN') return;
    const failures = s.failures + 1;
    if (failures >= this.profile.failureThreshold) {
      this.move(
        {
          name: 'OPEN',
          failures,
          openedAt: now,
          resetTimeoutMs: this.profile.resetTimeoutMs,
          failedProbes: 0,
        },
        now,
        `${failures} failure${failures === 1 ? '' : 's'}, last: ${cause}`,
      );
    } else if (failures >= degradationThreshold(this.profile)) {
      this.move(
        { name: 'DEGRADED', failures },
        now,
        `${failures} failure${failures === 1 ? '' : 's'}, last: ${cause}`,
      );
    } else if (failures !== s.failures) {
      this.state = { ...s, failures };
    }
  }

  /**
   * The permit of the probe now out (its expiry), to hand back to `releaseProbe`: a probe whose
   * permit already expired must not release the permit of the probe admitted after it.
   */
  probeTicket(): number | null {
    return this.state.name === 'HALF_OPEN' ? this.state.probeUntil : null;
  }

  /**
   * Gives the probe back without an outcome (client abort, or an answer that says nothing).
   * With a ticket, only that probe's permit is released; safe to call twice.
   */
  releaseProbe(ticket?: number | null): void {
    if (this.state.name !== 'HALF_OPEN') return;
    if (ticket !== undefined && ticket !== null && this.state.probeUntil !== ticket) return;
    this.state = { ...this.state, probeUntil: null };
  }

  /** Takes the state another instance moved this breaker to (team mode); history notes it. */
  adopt(remote: BreakerSnapshot, now: number): void {
    const cause = remote.history.at(-1)?.cause ?? 'changed';
    this.move({ ...remote.state }, now, `${cause} (on another instance)`);
  }

  reset(now: number, cause: string): void {
    this.move({ name: 'CLOSED', failures: 0 }, now, cause);
    this.state = { name: 'CLOSED', failures: 0 };
  }

  toJSON(): BreakerSnapshot {
    return { state: { ...this.state }, history: [...this.history] };
  }
}
