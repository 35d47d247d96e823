import type { EngineEvent, StateConfig } from '../../../shared/contract';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import { LOCAL_STATE, type StateBackend } from './backend';
import { RedisState } from './redis';

const DEFAULT_KEY_PREFIX = 'breakwater:';

/**
 * The state backend the config asks for: Redis with `state.backend: "redis"`, or with
 * `BREAKWATER_REDIS_URL` set and no backend named; otherwise local. The environment's URL wins
 * over the file's (a deployment's secret stays out of the config). Its status changes become
 * `team.status` events.
 */
export function openStateBackend(
  config: StateConfig | undefined,
  deps: { env: NodeJS.ProcessEnv; log: Logger; emit(e: EngineEvent): void; clock: Clock },
): StateBackend {
  const envUrl = deps.env.BREAKWATER_REDIS_URL || undefined;
  const backend = config?.backend ?? (envUrl ? 'redis' : 'local');
  if (backend === 'local') return LOCAL_STATE;
  const url = envUrl ?? config?.redis?.url;
  if (!url) {
    throw new Error(
      'invalid config: state.backend "redis" needs state.redis.url or BREAKWATER_REDIS_URL',
    );
  }
  if (!/^rediss?:\/\//.test(url))
    throw new Error('BREAKWATER_REDIS_URL must start with redis:// or rediss://');
  const redis = new RedisState({
    url,
    keyPrefix: config?.redis?.keyPrefix ?? DEFAULT_KEY_PREFIX,
    log: deps.log,
  });
  redis.onStatus((team) => deps.emit({ type: 'team.status', at: deps.clock.now(), team }));
  deps.log.info(`team mode: resilience state shared on Redis (${redactUrl(url)})`);
  return redis;
}

/** The URL without its credentials, for the log. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'redis';
  }
}
