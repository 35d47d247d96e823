import { RESILIENCE_CROSS_CHECKS, RESILIENCE_SETTINGS } from './resilience-settings';
import { SUBSCRIPTION_SETTINGS } from './subscription-settings';

/**
 * Every tunable number or switch of the engine, with its default, the environment variable that
 * may change that default, and its allowed range. Resilience mechanisms add their own entries
 * here so the dashboard, the API and the docs all read one list.
 */
export interface SettingDef {
  key: string;
  kind: 'integer' | 'boolean' | 'string' | 'json';
  defaultValue: number | boolean | string | unknown[] | Record<string, unknown>;
  /**
   * For `string` and `json`: checks and normalises a value, throwing a ValidationError (field =
   * the key) on anything invalid. Values read at start that fail it fall back to the default.
   */
  validate?: (value: unknown, key: string) => unknown;
  env?: string;
  min?: number;
  max?: number;
  unit?: 'ms' | 'bytes' | 'days' | 'count' | 'failures';
  description: string;
}

const DAY_MS = 86_400_000;

const CORE_SETTINGS: readonly SettingDef[] = [
  {
    key: 'timeouts.connectMs',
    kind: 'integer',
    defaultValue: 10_000,
    env: 'BREAKWATER_UPSTREAM_CONNECT_TIMEOUT_MS',
    min: 100,
    max: 300_000,
    unit: 'ms',
    description: 'Time allowed to open the TCP/TLS connection to a provider.',
  },
  {
    key: 'timeouts.firstByteMs',
    kind: 'integer',
    defaultValue: 300_000,
    env: 'BREAKWATER_UPSTREAM_FIRST_BYTE_TIMEOUT_MS',
    min: 100,
    max: DAY_MS,
    unit: 'ms',
    description:
      'Time from sending a request to the response headers. Non-streaming answers only start when the model has finished, so this is long.',
  },
  {
    key: 'timeouts.idleMs',
    kind: 'integer',
    defaultValue: 120_000,
    env: 'BREAKWATER_UPSTREAM_IDLE_TIMEOUT_MS',
    min: 100,
    max: DAY_MS,
    unit: 'ms',
    description: 'Longest silence allowed between two chunks of a response body.',
  },
  {
    key: 'timeouts.totalMs',
    kind: 'integer',
    defaultValue: 600_000,
    env: 'BREAKWATER_UPSTREAM_TOTAL_TIMEOUT_MS',
    min: 1_000,
    max: DAY_MS,
    unit: 'ms',
    description: 'Hard deadline for one upstream attempt, headers and body together.',
  },
  {
    key: 'requestLog.retentionDays',
    kind: 'integer',
    defaultValue: 30,
    env: 'BREAKWATER_REQUEST_LOG_RETENTION_DAYS',
    min: 1,
    max: 3650,
    unit: 'days',
    description: 'Request log rows older than this are pruned (checked at most once a minute).',
  },
];

export const SETTINGS: readonly SettingDef[] = [
  ...CORE_SETTINGS,
  ...RESILIENCE_SETTINGS,
  ...SUBSCRIPTION_SETTINGS,
];

export const CROSS_CHECKS: readonly CrossCheck[] = RESILIENCE_CROSS_CHECKS;

export function findSetting(key: string): SettingDef | undefined {
  return SETTINGS.find((s) => s.key === key);
}

/** A rule spanning several settings (e.g. max ≥ base); returns the problem or null. */
export interface CrossCheck {
  /** The key errors are reported on. */
  key: string;
  /** Every key the rule reads (rules whose keys a registry lacks are skipped). */
  keys: string[];
  check(get: (key: string) => unknown): string | null;
}
