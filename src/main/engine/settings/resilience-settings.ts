import {
  DEFAULT_BREAKER_PROFILES,
  DEFAULT_LOCKOUT_SETTINGS,
  DEFAULT_PROVIDER_COOLDOWN,
  DEFAULT_THROUGHPUT_WATCHDOG,
} from './resilience-defaults';
import {
  validateComboName,
  validateErrorCodes,
  validateFallback,
  validateRules,
} from './resilience-values';
import type { CrossCheck, SettingDef } from './setting-def';

const DAY = 86_400_000;
const PROFILES = ['oauth', 'api_key', 'local'] as const;

function breakerDefs(): SettingDef[] {
  return PROFILES.flatMap((p) => {
    const d = DEFAULT_BREAKER_PROFILES[p];
    return [
      {
        key: `breaker.${p}.degradationThreshold`,
        kind: 'integer',
        defaultValue: d.degradationThreshold,
        min: 0,
        max: 10_000,
        unit: 'failures',
        description: `Failures at which a ${p} provider's breaker turns DEGRADED (still allowed). 0 derives max(1, floor(0.6 × failureThreshold)).`,
      },
      {
        key: `breaker.${p}.failureThreshold`,
        kind: 'integer',
        defaultValue: d.failureThreshold,
        min: 1,
        max: 10_000,
        unit: 'failures',
        description: `Failures at which a ${p} provider's circuit opens and routing skips it.`,
      },
      {
        key: `breaker.${p}.resetTimeoutMs`,
        kind: 'integer',
        defaultValue: d.resetTimeoutMs,
        min: 1_000,
        max: DAY,
        unit: 'ms',
        description: `How long a ${p} provider's circuit stays open before one probe is let through (doubles per failed probe, up to 16×).`,
      },
    ] satisfies SettingDef[];
  });
}

function providerCooldownDefs(): SettingDef[] {
  return (['oauth', 'api_key'] as const).flatMap((p) => {
    const d = DEFAULT_PROVIDER_COOLDOWN[p];
    const env = `BREAKWATER_PROVIDER_BREAKER_${p.toUpperCase()}`;
    return [
      {
        key: `providerCooldown.${p}.providerFailureThreshold`,
        kind: 'integer',
        defaultValue: d.providerFailureThreshold,
        env: `${env}_FAILURE_THRESHOLD`,
        min: 1,
        max: 10_000,
        unit: 'failures',
        description: `Failures inside the window that put a ${p} provider in cooldown${p === 'api_key' ? ' (local providers use this profile too)' : ''}.`,
      },
      {
        key: `providerCooldown.${p}.providerFailureWindowMs`,
        kind: 'integer',
        defaultValue: d.providerFailureWindowMs,
        env: `${env}_FAILURE_WINDOW_MS`,
        min: 1_000,
        max: DAY,
        unit: 'ms',
        description: `The sliding window in which a ${p} provider's failures are counted.`,
      },
      {
        key: `providerCooldown.${p}.providerCooldownMs`,
        kind: 'integer',
        defaultValue: d.providerCooldownMs,
        env: `${env}_COOLDOWN_MS`,
        min: 1_000,
        max: DAY,
        unit: 'ms',
        description: `How long a ${p} provider is skipped once it reaches the threshold.`,
      },
    ] satisfies SettingDef[];
  });
}

const L = DEFAULT_LOCKOUT_SETTINGS;
const W = DEFAULT_THROUGHPUT_WATCHDOG;

export const RESILIENCE_SETTINGS: readonly SettingDef[] = [
  ...breakerDefs(),
  {
    key: 'providerCooldown.enabled',
    kind: 'boolean',
    defaultValue: false,
    env: 'BREAKWATER_PROVIDER_COOLDOWN_ENABLED',
    description:
      'Windowed provider cooldown: skip a provider for a while once it fails N times within a window.',
  },
  ...providerCooldownDefs(),
  {
    key: 'cooldown.oauth.baseMs',
    kind: 'integer',
    defaultValue: 5_000,
    min: 100,
    max: DAY,
    unit: 'ms',
    description: 'First cooldown of an oauth connection; doubles per consecutive failure.',
  },
  {
    key: 'cooldown.api_key.baseMs',
    kind: 'integer',
    defaultValue: 3_000,
    min: 100,
    max: DAY,
    unit: 'ms',
    description:
      'First cooldown of an api_key or local connection; doubles per consecutive failure.',
  },
  {
    key: 'cooldown.capMs',
    kind: 'integer',
    defaultValue: 1_800_000,
    min: 1_000,
    max: 7 * DAY,
    unit: 'ms',
    description:
      'Longest backoff cooldown. Resets announced by the upstream are honoured as stated.',
  },
  {
    key: 'modelLockout.enabled',
    kind: 'boolean',
    defaultValue: L.enabled,
    description:
      'Lock one provider/connection/model (or its quota family) instead of cooling the whole connection.',
  },
  {
    key: 'modelLockout.errorCodes',
    kind: 'json',
    defaultValue: L.errorCodes,
    validate: validateErrorCodes,
    description:
      'Upstream statuses that create a lockout (others never do, e.g. 402 and 500 by default).',
  },
  {
    key: 'modelLockout.baseCooldownMs',
    kind: 'integer',
    defaultValue: L.baseCooldownMs,
    min: 1_000,
    max: 7 * DAY,
    unit: 'ms',
    description: 'Lockout duration for the first failure.',
  },
  {
    key: 'modelLockout.maxCooldownMs',
    kind: 'integer',
    defaultValue: L.maxCooldownMs,
    min: 1_000,
    max: 7 * DAY,
    unit: 'ms',
    description: 'Longest lockout (must be at least the base).',
  },
  {
    key: 'modelLockout.maxBackoffSteps',
    kind: 'integer',
    defaultValue: L.maxBackoffSteps,
    min: 0,
    max: 30,
    unit: 'count',
    description: 'Doublings of the base duration at most.',
  },
  {
    key: 'modelLockout.useExponentialBackoff',
    kind: 'boolean',
    defaultValue: L.useExponentialBackoff,
    description: 'Double the lockout per repeated failure; off uses the base duration every time.',
  },
  {
    key: 'routing.failoverBudgetMs',
    kind: 'integer',
    defaultValue: 600_000,
    min: 1_000,
    max: DAY,
    unit: 'ms',
    description:
      'Total time one request may spend across failover attempts; each attempt gets what is left.',
  },
  {
    key: 'routing.emergencyFallback',
    kind: 'string',
    defaultValue: '',
    env: 'BREAKWATER_EMERGENCY_FALLBACK',
    validate: validateFallback,
    description:
      'A "provider/model" tried only when every other target is excluded or has failed, instead of answering 503.',
  },
  {
    key: 'routing.activeCombo',
    kind: 'string',
    defaultValue: '',
    validate: validateComboName,
    description:
      'The active combo: requests for the model "default" go to it (a combo named "default" wins). Requests naming a combo or model themselves are unaffected. Switched from the tray too.',
  },
  {
    key: 'routing.emergencyFallbackEnabled',
    kind: 'boolean',
    defaultValue: true,
    description: 'Switches the emergency fallback on and off without clearing it.',
  },
  {
    key: 'concurrencyLimit.enabled',
    kind: 'boolean',
    defaultValue: true,
    description:
      "Honour each connection's maxConcurrent (requests beyond it wait in line, fail-open).",
  },
  {
    key: 'concurrencyLimit.maxWaiting',
    kind: 'integer',
    defaultValue: 100,
    min: 0,
    max: 100_000,
    unit: 'count',
    description:
      'Requests that may wait for a maxConcurrent slot; beyond that they go ahead without one.',
  },
  {
    key: 'concurrencyLimit.waitTimeoutMs',
    kind: 'integer',
    defaultValue: 30_000,
    min: 1,
    max: DAY,
    unit: 'ms',
    description: 'Longest wait for a maxConcurrent slot before going ahead without one.',
  },
  {
    key: 'rateLimit.maxWaitMs',
    kind: 'integer',
    defaultValue: 30_000,
    env: 'BREAKWATER_RATE_LIMIT_MAX_WAIT_MS',
    min: 1,
    max: DAY,
    unit: 'ms',
    description:
      "Budget for waiting in a connection's request queue; over it the request fails with RATE_LIMIT_QUEUE_TIMEOUT (429) and never reaches the upstream.",
  },
  {
    key: 'rateLimit.executionMaxWaitMs',
    kind: 'integer',
    defaultValue: 600_000,
    env: 'BREAKWATER_RATE_LIMIT_EXECUTION_MAX_WAIT_MS',
    min: 1,
    max: DAY,
    unit: 'ms',
    description:
      'Longest execution of a queued job (raised to the upstream total timeout when that is longer); over it: RATE_LIMIT_EXECUTION_TIMEOUT (504).',
  },
  {
    key: 'rateLimit.maxQueueDepth',
    kind: 'integer',
    defaultValue: 0,
    env: 'BREAKWATER_RATE_LIMIT_MAX_QUEUE_DEPTH',
    min: 0,
    max: 100_000,
    unit: 'count',
    description:
      "Requests that may wait in one connection's queue; one more is refused at once with RATE_LIMIT_QUEUE_FULL (429). 0 = unlimited.",
  },
  {
    key: 'sessionAffinityTtlMs',
    kind: 'integer',
    defaultValue: 1_800_000,
    min: 0,
    max: 7 * DAY,
    unit: 'ms',
    description:
      'How long a client session stays pinned to the connection that served it (refreshed on use). 0 turns affinity off.',
  },
  {
    key: 'comboCooldownWait.enabled',
    kind: 'boolean',
    defaultValue: true,
    description:
      'Wait out a short rate-limit cooldown and dispatch again instead of failing with 429/503.',
  },
  {
    key: 'comboCooldownWait.maxWaitMs',
    kind: 'integer',
    defaultValue: 65_000,
    min: 0,
    max: DAY,
    unit: 'ms',
    description: 'Only cooldowns ending within this long are waited for.',
  },
  {
    key: 'comboCooldownWait.maxAttempts',
    kind: 'integer',
    defaultValue: 2,
    min: 0,
    max: 10,
    unit: 'count',
    description: 'Waits per request at most.',
  },
  {
    key: 'comboCooldownWait.budgetMs',
    kind: 'integer',
    defaultValue: 120_000,
    min: 0,
    max: DAY,
    unit: 'ms',
    description: 'Total time one request may spend waiting for cooldowns.',
  },
  {
    key: 'streamRecovery.throughputWatchdog',
    kind: 'boolean',
    defaultValue: false,
    env: 'BREAKWATER_STREAM_THROUGHPUT_WATCHDOG_ENABLED',
    description:
      'Stream throughput watchdog: cut an upstream stream whose useful text output stays below the minimum rate for a full window, and start it again if nothing reached the client yet.',
  },
  {
    key: 'streamRecovery.warmupMs',
    kind: 'integer',
    defaultValue: W.warmupMs,
    min: 0,
    max: 3_600_000,
    unit: 'ms',
    description: 'Time after a stream starts before the watchdog judges it at all.',
  },
  {
    key: 'streamRecovery.windowMs',
    kind: 'integer',
    defaultValue: W.windowMs,
    min: 100,
    max: 3_600_000,
    unit: 'ms',
    description:
      'Rolling window the output rate is measured over; judged only once a full window has passed after the warm-up (and after the last tool-call or reasoning event).',
  },
  {
    key: 'streamRecovery.minBytesPerSecond',
    kind: 'integer',
    defaultValue: W.minBytesPerSecond,
    min: 1,
    max: 1_048_576,
    unit: 'bytes',
    description: 'Least useful text output per second (UTF-8 bytes) over a window.',
  },
  {
    key: 'streamRecovery.minMeasurableBytes',
    kind: 'integer',
    defaultValue: W.minMeasurableBytes,
    min: 0,
    max: 1_048_576,
    unit: 'bytes',
    description:
      'Least output a measurement rests on: the window is stretched to at least this many bytes at the minimum rate.',
  },
  {
    key: 'providerErrorRules',
    kind: 'json',
    defaultValue: [],
    validate: validateRules,
    description:
      'Operator error rules: [{provider, id, status?, textMarkers?, headers?, reason, scope, cooldownMs?}]. They apply to their provider without any allowlist.',
  },
];

export const RESILIENCE_CROSS_CHECKS: readonly CrossCheck[] = [
  {
    key: 'modelLockout.maxCooldownMs',
    keys: ['modelLockout.maxCooldownMs', 'modelLockout.baseCooldownMs'],
    check: (get) =>
      (get('modelLockout.maxCooldownMs') as number) < (get('modelLockout.baseCooldownMs') as number)
        ? 'must be at least modelLockout.baseCooldownMs'
        : null,
  },
  ...PROFILES.map(
    (p): CrossCheck => ({
      key: `breaker.${p}.degradationThreshold`,
      keys: [`breaker.${p}.degradationThreshold`, `breaker.${p}.failureThreshold`],
      check: (get) => {
        const degraded = get(`breaker.${p}.degradationThreshold`) as number;
        return degraded !== 0 && degraded >= (get(`breaker.${p}.failureThreshold`) as number)
          ? `must be below breaker.${p}.failureThreshold (or 0 to derive it)`
          : null;
      },
    }),
  ),
];

/** Key prefixes served by `GET/PATCH /api/resilience`. */
export const RESILIENCE_PREFIXES = [
  'concurrencyLimit.',
  'rateLimit.',
  'sessionAffinityTtlMs',
  'comboCooldownWait.',
  'quotaWait.',
  'breaker.',
  'providerCooldown.',
  'cooldown.',
  'modelLockout.',
  'routing.',
  'providerErrorRules',
  'streamRecovery.',
  'streamContinuation.',
  'shapeRepair.',
];
