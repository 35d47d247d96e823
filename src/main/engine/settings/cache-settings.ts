import type { SettingDef } from './setting-def';

/** Keeping sessions on their prompt cache and saying when they lose it (issue 30). */
export const CACHE_SETTINGS: readonly SettingDef[] = [
  {
    key: 'cacheWatch.lossPercent',
    kind: 'integer',
    defaultValue: 50,
    env: 'BREAKWATER_CACHE_WATCH_LOSS_PERCENT',
    min: 0,
    max: 100,
    unit: 'count',
    description:
      "A session's turn that reads less than this percentage of what its previous turn left in the prompt cache is a cache loss: a `cache.lost` event and a note in the request log saying why. 0 turns the watch off.",
  },
  {
    key: 'sessionAffinity.cacheWaitMs',
    kind: 'integer',
    defaultValue: 2_000,
    env: 'BREAKWATER_SESSION_AFFINITY_CACHE_WAIT_MS',
    min: 0,
    max: 30_000,
    unit: 'ms',
    description:
      "When the connection holding a session's prompt cache is only busy (at its maxConcurrent, or its request queue full), the session waits up to this long for it instead of moving to another connection and paying for the whole prompt again. 0 moves at once.",
  },
];
