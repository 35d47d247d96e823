import type { ConnectionConfig, ProviderInput } from '../../../shared/contract';
import type { ConnectionRecord, ProviderRecord } from '../store';

/** A validated provider as the store keeps it. */
export function providerRecord(p: ProviderInput, position: number): ProviderRecord {
  return {
    id: p.id,
    format: p.format,
    baseUrl: p.baseUrl,
    authClass: p.authClass,
    models: p.models,
    timeouts: p.timeouts ?? {},
    enabled: p.enabled ?? true,
    position,
    options: p.quotaFamilies ? { quotaFamilies: p.quotaFamilies } : {},
  };
}

/**
 * A validated connection as the store keeps it. Without a new secret in the input the stored
 * one is kept, so editing a connection never requires re-entering its key.
 */
export function connectionRecord(
  provider: string,
  c: ConnectionConfig,
  prev: ConnectionRecord | undefined,
  position: number,
): ConnectionRecord {
  const keepSecret = c.apiKey === undefined && c.apiKeyEnv === undefined;
  return {
    id: c.id,
    provider,
    apiKey: keepSecret ? (prev?.apiKey ?? null) : (c.apiKey ?? null),
    apiKeyEnv: keepSecret ? (prev?.apiKeyEnv ?? null) : (c.apiKeyEnv ?? null),
    maxConcurrent: c.maxConcurrent ?? null,
    enabled: c.enabled ?? true,
    position,
    options: {
      ...(c.disableCooling ? { disableCooling: true } : {}),
      ...(c.rateLimit ? { rateLimit: c.rateLimit } : {}),
      ...(c.rateLimitOverrides ? { rateLimitOverrides: c.rateLimitOverrides } : {}),
    },
  };
}
