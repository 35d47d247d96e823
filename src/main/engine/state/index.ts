import type { EngineEvent, StateConfig } from '../../../shared/contract';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import { LOCAL_STATE, type StateBackend } from './backend';
import { RedisState } from './redis';
import { describeTarget, targetOf } from './redis-target';

export { redactUrl } from './redis-target';

const DEFAULT_KEY_PREFIX = 'breakwater:';

/**
 * The state backend the config asks for: Redis with `state.backend: "redis"`, or with
 * `BREAKWATER_REDIS_URL` or `BREAKWATER_REDIS_CLUSTER` set and no backend named; otherwise
 * local. The environment's Redis wins over the file's (a deployment's secret stays out of the
 * config). Its status changes become `team.status` events.
 */
export function openStateBackend(
  config: StateConfig | undefined,
  deps: { env: NodeJS.ProcessEnv; log: Logger; emit(e: EngineEvent): void; clock: Clock },
): StateBackend {
  const fromEnv = Boolean(deps.env.BREAKWATER_REDIS_URL || deps.env.BREAKWATER_REDIS_CLUSTER);
  const backend = config?.backend ?? (fromEnv ? 'redis' : 'local');
  if (backend === 'local') return LOCAL_STATE;
  const target = targetOf(config?.redis, deps.env);
  if (!target) {
    throw new Error(
      'invalid config: state.backend "redis" needs state.redis.url, state.redis.cluster, state.redis.sentinels, BREAKWATER_REDIS_URL or BREAKWATER_REDIS_CLUSTER',
    );
  }
  const redis = new RedisState({
    target,
    keyPrefix: config?.redis?.keyPrefix ?? DEFAULT_KEY_PREFIX,
    log: deps.log,
  });
  redis.onStatus((team) => deps.emit({ type: 'team.status', at: deps.clock.now(), team }));
  deps.log.info(`team mode: resilience state shared on Redis (${describeTarget(target)})`);
  return redis;
}
