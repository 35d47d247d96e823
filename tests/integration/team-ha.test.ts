// Team mode on highly available Redis (issue 34): every scenario of
// tests/support/team-scenarios.ts on a real 6-node Redis Cluster (3 primaries, 3 replicas) and
// on one primary with one replica behind three Sentinels: every data node stopped and started
// again mid-load, then a primary killed mid-load.
import { describe } from 'vitest';
import { haRedisMissing, startRedisCluster, startRedisSentinel } from '../support/redis';
import { listenOn, teamScenarios } from '../support/team-scenarios';

const missing = haRedisMissing();
const forms = [
  ['a Redis Cluster', startRedisCluster],
  ['Redis behind Sentinel', startRedisSentinel],
] as const;

describe.skipIf(missing !== null).each(forms)(
  `team mode on %s${missing ? ` (skipped: ${missing})` : ''}`,
  (_form, start) =>
    teamScenarios(
      async () => {
        const redis = await start();
        return {
          state: redis.config,
          listen: (prefix) => listenOn(redis.connect(true), prefix),
          outage: redis.outage,
          failover: redis.killPrimary,
          close: redis.close,
        };
      },
      { outage: true, failover: true },
    ),
);
