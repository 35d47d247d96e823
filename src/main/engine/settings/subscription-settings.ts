import { ValidationError } from '../../../shared/validation-error';
import type { SettingDef } from './setting-def';

/** An absolute http(s) origin (and optional path), without credentials, query or trailing slash. */
function validateApiBase(value: unknown, key: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(key, 'must be an absolute http(s) URL');
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ValidationError(key, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(key, 'must use http or https');
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ValidationError(key, 'must not contain credentials, a query or a fragment');
  }
  return value.trim().replace(/\/+$/, '');
}

/** Anthropic subscription accounts (RESILIENCE.md §2): the limit-reset endpoints. */
export const SUBSCRIPTION_SETTINGS: readonly SettingDef[] = [
  {
    key: 'subscription.anthropicApiBase',
    kind: 'string',
    defaultValue: 'https://api.anthropic.com',
    env: 'BREAKWATER_ANTHROPIC_API_BASE',
    validate: validateApiBase,
    description:
      'Base URL of the Anthropic API used by autoLimitReset (GET /api/oauth/usage, POST /api/organizations/{orgUUID}/reset_rate_limits). Change it only to point at a test double.',
  },
];
