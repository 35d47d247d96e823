import type { WebSearchConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { validateBaseUrl } from './provider';
import { integer, object, oneOf, optional, string } from './values';

export const WEB_SEARCH_BACKENDS = ['searxng', 'brave', 'tavily'] as const;
export const WEB_SEARCH_MAX_RESULTS = { min: 1, max: 20 };
export const DEFAULT_WEB_SEARCH_RESULTS = 5;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * `webSearch` (config file, admin API and the Settings form): SearXNG needs its URL; Brave and
 * Tavily need a key, literal or from the environment. The key is never echoed in an error.
 */
export function validateWebSearch(value: unknown, field: string): WebSearchConfig {
  const o = object(value, field, ['backend', 'url', 'apiKey', 'apiKeyEnv', 'maxResults']);
  const backend = oneOf(o.backend, `${field}.backend`, WEB_SEARCH_BACKENDS);
  const out: WebSearchConfig = { backend };
  const url = optional(o.url, (v) => validateBaseUrl(v, `${field}.url`));
  if (url !== undefined) out.url = url;
  else if (backend === 'searxng') {
    throw new ValidationError(`${field}.url`, 'is required for searxng (its base URL)');
  }
  if (o.apiKey !== undefined) {
    if (typeof o.apiKey !== 'string' || o.apiKey.trim() === '') {
      throw new ValidationError(`${field}.apiKey`, 'must be a non-empty string');
    }
    out.apiKey = o.apiKey;
  }
  const env = optional(o.apiKeyEnv, (v) =>
    string(v, `${field}.apiKeyEnv`, {
      pattern: ENV_NAME,
      hint: 'must be an environment variable name',
    }),
  );
  if (env !== undefined) out.apiKeyEnv = env;
  const max = optional(o.maxResults, (v) =>
    integer(v, `${field}.maxResults`, WEB_SEARCH_MAX_RESULTS),
  );
  if (max !== undefined) out.maxResults = max;
  return out;
}
