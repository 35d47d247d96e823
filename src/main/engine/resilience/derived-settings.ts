import type { AuthClass } from '../../../shared/contract';
import type {
  BreakerProfile,
  LockoutSettings,
  ProviderCooldownProfile,
} from '../settings/resilience-defaults';
import type { Settings } from '../settings/settings';

/** The connection-cooldown numbers: a base per credential kind (local counts as api_key). */
export interface ConnectionCooldownSettings {
  baseMs: Record<'api_key' | 'oauth', number>;
  capMs: number;
}

/** What the failure policy reads, as one value. */
export interface FailureSettings {
  lockout: LockoutSettings;
  /** Null while the windowed provider cooldown is switched off. */
  providerCooldown: ProviderCooldownProfile | null;
  connectionCooldown: ConnectionCooldownSettings;
}

/**
 * Settings read for every candidate of every request, computed once per settings change
 * rather than looked up key by key on the request path.
 */
export function deriveSettings(settings: Settings) {
  const breaker = (a: AuthClass) =>
    settings.derived(
      (s): BreakerProfile => ({
        degradationThreshold: s.number(`breaker.${a}.degradationThreshold`),
        failureThreshold: s.number(`breaker.${a}.failureThreshold`),
        resetTimeoutMs: s.number(`breaker.${a}.resetTimeoutMs`),
      }),
    );
  const providerCooldown = (p: 'api_key' | 'oauth') =>
    settings.derived(
      (s): ProviderCooldownProfile => ({
        providerFailureThreshold: s.number(`providerCooldown.${p}.providerFailureThreshold`),
        providerFailureWindowMs: s.number(`providerCooldown.${p}.providerFailureWindowMs`),
        providerCooldownMs: s.number(`providerCooldown.${p}.providerCooldownMs`),
      }),
    );
  const providerCooldowns = {
    api_key: providerCooldown('api_key'),
    oauth: providerCooldown('oauth'),
  };
  const providerCooldownEnabled = settings.derived((s) => s.boolean('providerCooldown.enabled'));
  const lockout = settings.derived(
    (s): LockoutSettings => ({
      enabled: s.boolean('modelLockout.enabled'),
      errorCodes: s.get('modelLockout.errorCodes') as number[],
      baseCooldownMs: s.number('modelLockout.baseCooldownMs'),
      maxCooldownMs: s.number('modelLockout.maxCooldownMs'),
      maxBackoffSteps: s.number('modelLockout.maxBackoffSteps'),
      useExponentialBackoff: s.boolean('modelLockout.useExponentialBackoff'),
    }),
  );
  const connectionCooldown = settings.derived(
    (s): ConnectionCooldownSettings => ({
      baseMs: {
        api_key: s.number('cooldown.api_key.baseMs'),
        oauth: s.number('cooldown.oauth.baseMs'),
      },
      capMs: s.number('cooldown.capMs'),
    }),
  );
  return {
    /** `cooldown.reprobeAfterMs`: a longer cooldown lets one probe through after this long. */
    reprobeAfterMs: settings.derived((s) => s.number('cooldown.reprobeAfterMs')),
    breaker: { api_key: breaker('api_key'), oauth: breaker('oauth'), local: breaker('local') },
    providerCooldownEnabled,
    lockout,
    /** The failure policy's settings for a provider of this credential kind. */
    failure(authClass: AuthClass): FailureSettings {
      return {
        lockout: lockout(),
        providerCooldown: providerCooldownEnabled()
          ? providerCooldowns[authClass === 'oauth' ? 'oauth' : 'api_key']()
          : null,
        connectionCooldown: connectionCooldown(),
      };
    },
  };
}

export type DerivedSettings = ReturnType<typeof deriveSettings>;
