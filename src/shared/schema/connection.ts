// A provider's connection (an account or key). The dashboard's connection form checks its counts
// against the same ranges before anything is sent.

import type {
  ConnectionConfig,
  ConnectionRateLimit,
  ProviderFormat,
  RateLimitOverrides,
} from '../contract';
import { ValidationError } from '../validation-error';
import {
  boolean,
  DAY_MS,
  identifier,
  integer,
  integers,
  type Obj,
  object,
  optional,
  type Range,
  string,
} from './values';

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const MAX_CONCURRENT_RANGE: Range = { min: 0, max: 10_000 };

export const RATE_LIMIT_RANGES: Record<keyof ConnectionRateLimit, Range> = {
  concurrency: { min: 0, max: 10_000 },
  requestsPerMinute: { min: 0, max: 1_000_000 },
};

export const RATE_LIMIT_OVERRIDE_RANGES: Record<keyof RateLimitOverrides, Range> = {
  maxWaitMs: { min: 1, max: DAY_MS },
  executionMaxWaitMs: { min: 1, max: DAY_MS },
  maxQueueDepth: { min: 0, max: 100_000 },
};

export function validateConnection(value: unknown, field: string): ConnectionConfig {
  const o = object(value, field, [
    'id',
    'apiKey',
    'apiKeyEnv',
    'maxConcurrent',
    'enabled',
    'disableCooling',
    'rateLimit',
    'rateLimitOverrides',
    'lowPriorityMode',
    'autoLimitReset',
    'organizationUUID',
  ]);
  const conn: ConnectionConfig = { id: identifier(o.id, `${field}.id`) };
  const apiKey = optional(o.apiKey, (v) => string(v, `${field}.apiKey`));
  const apiKeyEnv = optional(o.apiKeyEnv, (v) =>
    string(v, `${field}.apiKeyEnv`, {
      pattern: ENV_NAME_PATTERN,
      hint: 'must be an environment variable name',
    }),
  );
  if (apiKey !== undefined && apiKeyEnv !== undefined) {
    throw new ValidationError(field, 'set either apiKey or apiKeyEnv, not both');
  }
  if (apiKey !== undefined) conn.apiKey = apiKey;
  if (apiKeyEnv !== undefined) conn.apiKeyEnv = apiKeyEnv;
  const maxConcurrent = optional(o.maxConcurrent, (v) =>
    integer(v, `${field}.maxConcurrent`, MAX_CONCURRENT_RANGE),
  );
  if (maxConcurrent !== undefined) conn.maxConcurrent = maxConcurrent;
  const enabled = optional(o.enabled, (v) => boolean(v, `${field}.enabled`));
  if (enabled !== undefined) conn.enabled = enabled;
  const disableCooling = optional(o.disableCooling, (v) => boolean(v, `${field}.disableCooling`));
  if (disableCooling !== undefined) conn.disableCooling = disableCooling;
  const rateLimit = optional(o.rateLimit, (v) =>
    integers(v, `${field}.rateLimit`, RATE_LIMIT_RANGES),
  );
  if (rateLimit !== undefined) conn.rateLimit = rateLimit;
  const overrides = optional(o.rateLimitOverrides, (v) =>
    integers(v, `${field}.rateLimitOverrides`, RATE_LIMIT_OVERRIDE_RANGES),
  );
  if (overrides !== undefined) conn.rateLimitOverrides = overrides;
  validateSubscriptionOptions(o, conn, field);
  return conn;
}

/** The subscription options exist only for connections of an Anthropic-format provider. */
export function checkSubscriptionProvider(
  format: ProviderFormat,
  conn: ConnectionConfig,
  field: string,
): void {
  if (format === 'anthropic') return;
  const opt = conn.lowPriorityMode
    ? 'lowPriorityMode'
    : conn.autoLimitReset
      ? 'autoLimitReset'
      : null;
  if (opt) {
    throw new ValidationError(
      `${field}.${opt}`,
      'applies to Anthropic subscription accounts only (a provider with format "anthropic")',
    );
  }
}

/** `lowPriorityMode`, `autoLimitReset`, `organizationUUID` (Anthropic subscription accounts). */
function validateSubscriptionOptions(o: Obj, conn: ConnectionConfig, field: string): void {
  const low = optional(o.lowPriorityMode, (v) => boolean(v, `${field}.lowPriorityMode`));
  if (low !== undefined) conn.lowPriorityMode = low;
  const reset = optional(o.autoLimitReset, (v) => boolean(v, `${field}.autoLimitReset`));
  if (reset !== undefined) conn.autoLimitReset = reset;
  const org = optional(o.organizationUUID, (v) =>
    string(v, `${field}.organizationUUID`, {
      pattern: UUID_PATTERN,
      hint: 'must be a UUID such as 3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b',
    }),
  );
  if (org !== undefined) conn.organizationUUID = org.toLowerCase();
  if (conn.autoLimitReset && conn.organizationUUID === undefined) {
    throw new ValidationError(
      `${field}.organizationUUID`,
      'is required when autoLimitReset is on (the limit reset is made for that organization)',
    );
  }
}
