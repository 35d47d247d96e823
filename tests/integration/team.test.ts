// Team mode (issue 16) on one real Redis: every scenario of tests/support/team-scenarios.ts,
// with Redis stopped and started again mid-load.
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { redisMissing, startRedis } from '../support/redis';
import { listenOn, teamScenarios } from '../support/team-scenarios';

const missing = redisMissing();

describe.skipIf(missing !== null)(
  `team mode on Redis${missing ? ` (skipped: ${missing})` : ''}`,
  () =>
    teamScenarios(
      async () => {
        const redis = await startRedis();
        return {
          state: { url: redis.url },
          listen: (prefix) => listenOn(new Redis(redis.url), prefix),
          outage: { stop: redis.stop, start: redis.start },
          close: redis.close,
        };
      },
      { outage: true, failover: false },
    ),
);
