import type { StateConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { clusterSeeds, sentinelAddresses } from './redis-nodes';
import { object, oneOf, optional, string } from './values';

// No braces: in a Cluster the key layout puts a hash tag after the prefix, and a brace in the
// prefix would become the tag instead (every key on one slot, or scripts across slots).
const KEY_PREFIX = /^[A-Za-z0-9:._-]{1,64}$/;
const MASTER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

type RedisConfig = NonNullable<StateConfig['redis']>;

/** The Sentinel form's own fields: allowed only with `sentinels`. */
function sentinelFields(r: Record<string, unknown>, field: string): Partial<RedisConfig> {
  const named = ['name', 'sentinelPassword', 'username', 'password'].filter(
    (k) => r[k] !== undefined,
  );
  if (r.sentinels === undefined) {
    if (named.length > 0)
      throw new ValidationError(`${field}.${named[0]}`, 'is only allowed with sentinels');
    return {};
  }
  const secret = (k: string) => optional(r[k], (v) => string(v, `${field}.${k}`));
  const out: Partial<RedisConfig> = {
    sentinels: sentinelAddresses(r.sentinels, `${field}.sentinels`),
    name: string(r.name, `${field}.name`, {
      pattern: MASTER_NAME,
      hint: 'must be the master group name Sentinel monitors (1-64 letters, digits, ".", "_" or "-")',
    }),
  };
  for (const k of ['sentinelPassword', 'username', 'password'] as const) {
    const v = secret(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** `state`: the state backend (issue 16). Credentials in the URL are allowed; they are never logged. */
export function validateState(value: unknown, field: string): StateConfig {
  const o = object(value, field, ['backend', 'redis']);
  const backend = oneOf(o.backend, `${field}.backend`, ['local', 'redis'] as const);
  const out: StateConfig = { backend };
  if (o.redis === undefined) return out;
  const f = `${field}.redis`;
  const r = object(o.redis, f, [
    'url',
    'cluster',
    'sentinels',
    'name',
    'sentinelPassword',
    'username',
    'password',
    'keyPrefix',
  ]);
  const forms = (['url', 'cluster', 'sentinels'] as const).filter((k) => r[k] !== undefined);
  if (forms.length > 1)
    throw new ValidationError(
      `${f}.${forms[1]}`,
      `cannot be combined with ${forms[0]}: give one of url, cluster or sentinels`,
    );
  const url = optional(r.url, (v) => string(v, `${f}.url`));
  if (url !== undefined && !/^rediss?:\/\//.test(url))
    throw new ValidationError(`${f}.url`, 'must start with redis:// or rediss://');
  const cluster = optional(r.cluster, (v) => clusterSeeds(v, `${f}.cluster`));
  const keyPrefix = optional(r.keyPrefix, (v) =>
    string(v, `${f}.keyPrefix`, {
      pattern: KEY_PREFIX,
      hint: 'must be 1-64 letters, digits, colons, dots, dashes or underscores',
    }),
  );
  out.redis = {
    ...(url !== undefined ? { url } : {}),
    ...(cluster !== undefined ? { cluster } : {}),
    ...sentinelFields(r, f),
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
  };
  return out;
}
