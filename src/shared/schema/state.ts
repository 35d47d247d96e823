import type { StateConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { object, oneOf, optional, string } from './values';

const KEY_PREFIX = /^[A-Za-z0-9:._-]{1,64}$/;

/** `state`: the state backend (issue 16). Credentials in the URL are allowed; they are never logged. */
export function validateState(value: unknown, field: string): StateConfig {
  const o = object(value, field, ['backend', 'redis']);
  const backend = oneOf(o.backend, `${field}.backend`, ['local', 'redis'] as const);
  const out: StateConfig = { backend };
  if (o.redis === undefined) return out;
  const r = object(o.redis, `${field}.redis`, ['url', 'keyPrefix']);
  const url = optional(r.url, (v) => string(v, `${field}.redis.url`));
  if (url !== undefined && !/^rediss?:\/\//.test(url))
    throw new ValidationError(`${field}.redis.url`, 'must start with redis:// or rediss://');
  const keyPrefix = optional(r.keyPrefix, (v) =>
    string(v, `${field}.redis.keyPrefix`, {
      pattern: KEY_PREFIX,
      hint: 'must be 1-64 letters, digits, colons, dots, dashes or underscores',
    }),
  );
  out.redis = {
    ...(url !== undefined ? { url } : {}),
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
  };
  return out;
}
