import type { ProviderCooldownProfile } from '../settings/resilience-defaults';
/**
 * Failures of one provider inside a sliding window. Below the threshold the provider is not
 * cooling at all; at the threshold it cools for `providerCooldownMs`; a success clears the
 * window. Shared across requests so back-to-back combo requests skip a provider that just
 * failed instead of each walking into it.
 */
export class ProviderCooldown {
  private failures: number[] = [];
  private until: number | null = null;

  recordFailure(now: number, p: ProviderCooldownProfile): number | null {
    this.failures = this.failures.filter((t) => t > now - p.providerFailureWindowMs);
    this.failures.push(now);
    if (this.failures.length >= p.providerFailureThreshold && !this.cooling(now)) {
      this.until = now + p.providerCooldownMs;
      this.failures = [];
      return this.until;
    }
    return null;
  }

  recordSuccess(): void {
    this.failures = [];
  }

  cooling(now: number): boolean {
    if (this.until !== null && this.until <= now) this.until = null;
    return this.until !== null;
  }

  retryAfterMs(now: number): number {
    return this.cooling(now) ? this.until! - now : 0;
  }

  clear(): void {
    this.failures = [];
    this.until = null;
  }
}
