import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { CatalogProvider } from '../config/catalog';

// Upstream headers are built from scratch: only these client headers are copied, so the
// client's own auth, session and lease headers can never leak to a provider.
const FORWARDED_CLIENT_HEADERS = [
  'anthropic-version',
  'anthropic-beta',
  'openai-organization',
  'openai-project',
  'openai-beta',
  'user-agent',
] as const;

const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * Upstream request headers. `extra` are the gateway's own per-connection headers (the
 * subscription lane's `anthropic-usage-limit: slow`); they win over anything copied.
 */
export function upstreamHeaders(
  client: IncomingHttpHeaders,
  provider: CatalogProvider,
  secret: string | null,
  bodyLength: number,
  stream: boolean,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(bodyLength),
    accept: stream ? 'text/event-stream' : 'application/json',
    // Identity keeps streams relayable chunk by chunk and lets usage be read on the way.
    'accept-encoding': 'identity',
  };
  for (const name of FORWARDED_CLIENT_HEADERS) {
    const v = client[name];
    if (typeof v === 'string') out[name] = v;
    else if (Array.isArray(v)) out[name] = v.join(',');
  }
  if (provider.format === 'anthropic') out['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  Object.assign(out, credentialHeaders(provider, secret), extra);
  return out;
}

/** How a connection's credential is presented to its provider (also for the provider's own APIs). */
export function credentialHeaders(
  provider: Pick<CatalogProvider, 'format' | 'authClass'>,
  secret: string | null,
): Record<string, string> {
  if (!secret) return {};
  if (provider.format === 'anthropic' && provider.authClass !== 'oauth')
    return { 'x-api-key': secret };
  return { authorization: `Bearer ${secret}` };
}

const PASSED_BACK_PREFIXES = ['x-ratelimit-', 'anthropic-', 'openai-', 'x-request-id'];
const PASSED_BACK = new Set(['content-type', 'retry-after', 'request-id', 'x-request-id']);

/**
 * Provider response headers a client may use (rate-limit state, request ids, Retry-After);
 * everything else (cookies, hop-by-hop, CDN noise) stays behind.
 */
export function clientResponseHeaders(
  upstream: Record<string, string | string[] | undefined>,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value !== undefined && passesBack(name)) out[name] = value;
  }
  return out;
}

function passesBack(name: string): boolean {
  if (PASSED_BACK.has(name)) return true;
  for (const prefix of PASSED_BACK_PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
}
