import type { ConnectionConfig, ConnectionOptions, ProviderInput } from '../../../shared/contract';
import type { ConnectionRecord, ProviderRecord } from './';

/**
 * A validated provider as the store keeps it. Optional fields the input does not mention keep
 * their stored value, so a form that knows nothing of them cannot undo them.
 */
export function providerRecord(
  p: ProviderInput,
  position: number,
  prev?: ProviderRecord,
): ProviderRecord {
  return {
    id: p.id,
    format: p.format,
    baseUrl: p.baseUrl,
    authClass: p.authClass,
    models: p.models,
    timeouts: p.timeouts ?? prev?.timeouts ?? {},
    enabled: p.enabled ?? prev?.enabled ?? true,
    position,
    options: {
      ...prev?.options,
      ...(p.quotaFamilies !== undefined ? { quotaFamilies: p.quotaFamilies } : {}),
      ...(p.promptCache !== undefined ? { promptCache: p.promptCache } : {}),
    },
  };
}

/** The connection options the input states (an explicit `false` clears a switch). */
function definedOptions(c: ConnectionConfig): ConnectionOptions {
  const stated: ConnectionOptions = {
    disableCooling: c.disableCooling,
    rateLimit: c.rateLimit,
    rateLimitOverrides: c.rateLimitOverrides,
    lowPriorityMode: c.lowPriorityMode,
    autoLimitReset: c.autoLimitReset,
    organizationUUID: c.organizationUUID,
  };
  return Object.fromEntries(
    Object.entries(stated).filter(([, v]) => v !== undefined),
  ) as ConnectionOptions;
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
    maxConcurrent: c.maxConcurrent ?? prev?.maxConcurrent ?? null,
    enabled: c.enabled ?? prev?.enabled ?? true,
    position,
    options: { ...prev?.options, ...definedOptions(c) },
  };
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * The connections of `p` that name no secret but have one stored while the provider was at
 * another URL: saving them would send that key (or the variable's value) to the new URL.
 */
export function secretsForAnotherUrl(
  p: ProviderInput,
  prev: ProviderRecord | undefined,
  stored: (id: string) => ConnectionRecord | undefined,
): string[] {
  if (!prev || !p.connections || sameUrl(prev.baseUrl, p.baseUrl)) return [];
  return p.connections
    .filter((c) => c.apiKey === undefined && c.apiKeyEnv === undefined)
    .filter((c) => {
      const s = stored(c.id);
      return s?.provider === p.id && (s.apiKey !== null || s.apiKeyEnv !== null);
    })
    .map((c) => c.id);
}
