import { ValidationError } from '../../../shared/validation-error';
import { CACHE_SETTINGS } from './cache-settings';
import { CONTINUATION_SETTINGS } from './continuation-settings';
import { QUOTA_WAIT_SETTINGS } from './quota-wait-settings';
import { RESILIENCE_CROSS_CHECKS, RESILIENCE_SETTINGS } from './resilience-settings';
import type { CrossCheck, SettingDef } from './setting-def';
import { SHAPE_SETTINGS } from './shape-settings';
import { SUBSCRIPTION_SETTINGS } from './subscription-settings';

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
  {
    key: 'requestLog.captureBodies',
    kind: 'string',
    defaultValue: 'failed',
    env: 'BREAKWATER_REQUEST_LOG_CAPTURE_BODIES',
    validate: validateCaptureMode,
    description:
      'Which requests keep what was sent upstream and what came back, per attempt (secrets redacted): "failed" (the default), "all" or "off".',
  },
  {
    key: 'requestLog.captureMaxBytes',
    kind: 'integer',
    defaultValue: 262_144,
    env: 'BREAKWATER_REQUEST_LOG_CAPTURE_MAX_BYTES',
    min: 1024,
    max: 16 * 1024 * 1024,
    unit: 'bytes',
    description: 'A captured body is cut after this many bytes, and marked as cut.',
  },
  {
    key: 'usage.retentionDays',
    kind: 'integer',
    defaultValue: 400,
    env: 'BREAKWATER_USAGE_RETENTION_DAYS',
    min: 1,
    max: 3650,
    unit: 'days',
    description:
      'Per-minute usage roll-ups (tokens and cost) older than this are pruned (checked hourly).',
  },
];

const CAPTURE_MODES = ['failed', 'all', 'off'];

function validateCaptureMode(value: unknown, key: string): string {
  const v = typeof value === 'string' ? value.trim() : value;
  if (typeof v !== 'string' || !CAPTURE_MODES.includes(v)) {
    throw new ValidationError(key, `must be one of ${CAPTURE_MODES.join(', ')}`);
  }
  return v;
}

export const SETTINGS: readonly SettingDef[] = [
  ...CORE_SETTINGS,
  ...RESILIENCE_SETTINGS,
  ...QUOTA_WAIT_SETTINGS,
  ...SUBSCRIPTION_SETTINGS,
  ...SHAPE_SETTINGS,
  ...CACHE_SETTINGS,
  ...CONTINUATION_SETTINGS,
];

export const CROSS_CHECKS: readonly CrossCheck[] = RESILIENCE_CROSS_CHECKS;

export function findSetting(key: string): SettingDef | undefined {
  return SETTINGS.find((s) => s.key === key);
}
