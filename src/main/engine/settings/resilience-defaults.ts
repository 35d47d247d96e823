// Defaults and option shapes of the resilience mechanisms (RESILIENCE.md). They live with the
// settings, which validate and derive them; the mechanisms import them from here.
import type { AuthClass } from '../../../shared/contract';

/** Thresholds of one auth-class profile (RESILIENCE.md §1). */
export interface BreakerProfile {
  /** Failures at which CLOSED becomes DEGRADED; 0 derives max(1, floor(0.6 × failureThreshold)). */
  degradationThreshold: number;
  failureThreshold: number;
  resetTimeoutMs: number;
}

export const DEFAULT_BREAKER_PROFILES: Record<AuthClass, BreakerProfile> = {
  oauth: { degradationThreshold: 5, failureThreshold: 8, resetTimeoutMs: 60_000 },
  api_key: { degradationThreshold: 7, failureThreshold: 12, resetTimeoutMs: 30_000 },
  local: { degradationThreshold: 0, failureThreshold: 2, resetTimeoutMs: 15_000 },
};

/** RESILIENCE.md §3 settings. */
export interface LockoutSettings {
  enabled: boolean;
  errorCodes: number[];
  baseCooldownMs: number;
  maxCooldownMs: number;
  maxBackoffSteps: number;
  useExponentialBackoff: boolean;
}

export const DEFAULT_LOCKOUT_SETTINGS: LockoutSettings = {
  enabled: false,
  errorCodes: [403, 404, 429, 502, 503, 504],
  baseCooldownMs: 120_000,
  maxCooldownMs: 1_800_000,
  maxBackoffSteps: 10,
  useExponentialBackoff: true,
};

/** Settings of the optional windowed provider cooldown (RESILIENCE.md §1, off by default). */
export interface ProviderCooldownProfile {
  providerFailureThreshold: number;
  providerFailureWindowMs: number;
  providerCooldownMs: number;
}

export const DEFAULT_PROVIDER_COOLDOWN: Record<'oauth' | 'api_key', ProviderCooldownProfile> = {
  oauth: {
    providerFailureThreshold: 10,
    providerFailureWindowMs: 15 * 60_000,
    providerCooldownMs: 5 * 60_000,
  },
  api_key: {
    providerFailureThreshold: 15,
    providerFailureWindowMs: 30 * 60_000,
    providerCooldownMs: 10 * 60_000,
  },
};

/** The watchdog's settings, validated once when a watchdog is built. */
export interface ThroughputWatchdogOptions {
  /** Nothing is judged before this long after the stream started. */
  warmupMs: number;
  /** The rolling window the rate is measured over. */
  windowMs: number;
  /** Useful output below this rate over a full window trips the watchdog. */
  minBytesPerSecond: number;
  /**
   * The least output a measurement rests on: the window is stretched until the minimum rate
   * amounts to at least this many bytes (`windowMs` ≥ minMeasurableBytes / minBytesPerSecond),
   * so a short window is never judged on a handful of bytes.
   */
  minMeasurableBytes: number;
}

export const DEFAULT_THROUGHPUT_WATCHDOG: Readonly<ThroughputWatchdogOptions> = {
  warmupMs: 30_000,
  windowMs: 60_000,
  minBytesPerSecond: 16,
  minMeasurableBytes: 256,
};

export type ErrorReason =
  | 'quota_exhausted'
  | 'rate_limit_exceeded'
  | 'auth_error'
  | 'credits_exhausted'
  | 'permanent'
  | 'banned'
  | 'request_rejected'
  | 'model_not_found'
  | 'model_access'
  | 'context_overflow'
  | 'server_error'
  | 'bad_request';

export const RULE_REASONS: readonly ErrorReason[] = [
  'quota_exhausted',
  'rate_limit_exceeded',
  'auth_error',
  'credits_exhausted',
  'permanent',
  'banned',
  'request_rejected',
  'model_not_found',
  'model_access',
  'context_overflow',
  'server_error',
  'bad_request',
];
