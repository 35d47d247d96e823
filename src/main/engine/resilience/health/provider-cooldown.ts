import type { ProviderCooldownProfile } from '../../settings/resilience-defaults';

/**
 * The windowed provider cooldown (RESILIENCE.md §1) as a union: data per state. Failures keep
 * being counted while cooling, so a provider that keeps failing cools again soon after.
 */
export type ProviderCooldownState =
  | { name: 'ACTIVE'; failures: readonly number[] }
  | { name: 'COOLING'; failures: readonly number[]; until: number };

export const NOT_COOLING: ProviderCooldownState = { name: 'ACTIVE', failures: [] };

/** Lazy recovery: a cooldown whose `until` has passed is over. */
export function currentCooldown(s: ProviderCooldownState, now: number): ProviderCooldownState {
  return s.name === 'COOLING' && s.until <= now ? { name: 'ACTIVE', failures: s.failures } : s;
}

/**
 * One failure inside the sliding window. At the threshold, while not cooling, the provider
 * cools for `providerCooldownMs` and the window starts empty; `until` says when that happened.
 */
export function afterProviderFailure(
  before: ProviderCooldownState,
  now: number,
  p: ProviderCooldownProfile,
): { state: ProviderCooldownState; until: number | null } {
  const s = currentCooldown(before, now);
  const failures = [...s.failures.filter((t) => t > now - p.providerFailureWindowMs), now];
  if (s.name === 'ACTIVE' && failures.length >= p.providerFailureThreshold) {
    const until = now + p.providerCooldownMs;
    return { state: { name: 'COOLING', failures: [], until }, until };
  }
  return { state: { ...s, failures }, until: null };
}

/** A success clears the window; a running cooldown still runs out. */
export function afterProviderSuccess(s: ProviderCooldownState): ProviderCooldownState {
  return s.failures.length === 0 ? s : { ...s, failures: [] };
}

/**
 * Failures of one provider inside a sliding window. Below the threshold the provider is not
 * cooling at all; at the threshold it cools for `providerCooldownMs`; a success clears the
 * window. Shared across requests so back-to-back combo requests skip a provider that just
 * failed instead of each walking into it. Reads end an expired cooldown and report it once to
 * `onEnded`, as the breaker reports its transitions.
 */
export class ProviderCooldown {
  private state: ProviderCooldownState = NOT_COOLING;

  constructor(private readonly onEnded: (at: number) => void = () => {}) {}

  /** The state at `now`; the read that finds a cooldown over ends it. */
  read(now: number): ProviderCooldownState {
    const next = currentCooldown(this.state, now);
    if (next !== this.state) {
      this.state = next;
      this.onEnded(now);
    }
    return next;
  }

  /** Takes a state decided elsewhere (the failure policy). */
  write(state: ProviderCooldownState): void {
    this.state = state;
  }

  recordFailure(now: number, p: ProviderCooldownProfile): number | null {
    const { state, until } = afterProviderFailure(this.read(now), now, p);
    this.state = state;
    return until;
  }

  recordSuccess(): void {
    this.state = afterProviderSuccess(this.state);
  }

  cooling(now: number): boolean {
    return this.read(now).name === 'COOLING';
  }

  retryAfterMs(now: number): number {
    const s = this.read(now);
    return s.name === 'COOLING' ? s.until - now : 0;
  }

  /** When the running cooldown ends, or null. */
  until(now: number): number | null {
    const s = this.read(now);
    return s.name === 'COOLING' ? s.until : null;
  }

  clear(): void {
    this.state = NOT_COOLING;
  }
}
