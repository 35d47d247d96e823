import { createHash } from 'node:crypto';
import type { CatalogProvider } from '../../config/catalog';
import type { RequestContext } from './context';

// What the gateway adds for a provider's prompt cache (issue 30, docs/translation.md): the
// breakpoints an Anthropic provider needs for a client that cannot write them (the translation
// places them), and a `prompt_cache_key` from the session for an OpenAI-format provider, so the
// provider keeps the session's turns on one cache. Both are on unless the provider's
// `promptCache` turns them off.

/** Whether an Anthropic-format provider gets breakpoints in translated requests. */
export function breakpointsFor(provider: CatalogProvider): boolean {
  return provider.format === 'anthropic' && provider.options?.promptCache?.breakpoints !== false;
}

function cacheKeyFor(provider: CatalogProvider): boolean {
  return (
    (provider.format === 'openai' || provider.format === 'openai-chat') &&
    provider.options?.promptCache?.cacheKey !== false
  );
}

/**
 * What tells two providers of one format apart in the translations kept per format: only a
 * provider that turned its cache help off needs a translation of its own.
 */
export function cacheVariant(provider: CatalogProvider): string {
  return provider.options?.promptCache?.breakpoints === false ||
    provider.options?.promptCache?.cacheKey === false
    ? '|no-cache-help'
    : '';
}

/**
 * The cache key the gateway sends for the request's session, or null: no session, the client
 * named its own key, or the provider is not OpenAI-format or turned it off. A digest, so the
 * session id (which may come from a header that is never forwarded) does not leave the gateway.
 */
export function sessionCacheKey(ctx: RequestContext, provider: CatalogProvider): string | null {
  if (ctx.session === null || ctx.clientCacheKey === true || !cacheKeyFor(provider)) return null;
  return `bw-${createHash('sha256').update(ctx.session).digest('hex').slice(0, 32)}`;
}

/**
 * `prompt_cache_key` as the body's first member (`outgoingPassthrough`): a byte-level edit, so a
 * passed-through request is not parsed and written again; the client sent no key of its own.
 */
export function cacheKeyMember(key: string): Buffer {
  return Buffer.from(`"prompt_cache_key":${JSON.stringify(key)},`);
}
