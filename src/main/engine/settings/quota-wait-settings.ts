import type { SettingDef } from './setting-def';

const DAY = 86_400_000;

/** Waiting for a near quota reset, and re-probing long cooldowns (issue 29). */
export const QUOTA_WAIT_SETTINGS: readonly SettingDef[] = [
  {
    key: 'quotaWait.maxWaitMs',
    kind: 'integer',
    defaultValue: 300_000,
    env: 'BREAKWATER_QUOTA_WAIT_MAX_WAIT_MS',
    min: 0,
    max: DAY,
    unit: 'ms',
    description:
      'When nothing can serve a request and every obstacle (quota or rate-limit cooldown, model lockout, open circuit) ends by itself within this long, the request waits for the earliest end instead of failing. 0 turns the wait off.',
  },
  {
    key: 'quotaWait.keepAliveMs',
    kind: 'integer',
    defaultValue: 15_000,
    min: 100,
    max: 15_000,
    unit: 'ms',
    description:
      'A waiting streaming client gets a keep-alive in its own format this often (at most 15 s apart).',
  },
  {
    key: 'cooldown.reprobeAfterMs',
    kind: 'integer',
    defaultValue: 1_800_000,
    env: 'BREAKWATER_COOLDOWN_REPROBE_AFTER_MS',
    min: 0,
    max: 7 * DAY,
    unit: 'ms',
    description:
      'A connection cooldown longer than this lets one real request through as a probe after this long (and again this long after each failed probe); a success ends the cooldown early. 0 turns re-probing off.',
  },
];
