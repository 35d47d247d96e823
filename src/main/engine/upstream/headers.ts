import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { CatalogProvider } from '../config/catalog';
import { redactSecrets } from '../logger';

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
  putCredential(out, provider, secret);
  Object.assign(out, extra);
  return out;
}

/** How a connection's credential is presented to its provider (also for the provider's own APIs). */
export function credentialHeaders(
  provider: Pick<CatalogProvider, 'format' | 'authClass'>,
  secret: string | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  putCredential(out, provider, secret);
  return out;
}

/** Writes the credential header into `out` (a proxied call's headers: no object of its own). */
function putCredential(
  out: Record<string, string>,
  provider: Pick<CatalogProvider, 'format' | 'authClass'>,
  secret: string | null,
): void {
  if (!secret) return;
  if (provider.authClass !== 'oauth') {
    if (provider.format === 'anthropic') {
      out['x-api-key'] = secret;
      return;
    }
    if (provider.format === 'gemini') {
      out['x-goog-api-key'] = secret;
      return;
    }
  }
  out.authorization = `Bearer ${secret}`;
}

// An allowlist: a provider's response headers can carry account data (`openai-organization`,
// an org id) and some echo the caller's key into request ids; a client needs only these.
const PASSED_BACK = new Set([
  'content-type',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'request-id',
  'x-request-id',
]);
const PASSED_BACK_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-'];

/**
 * Provider response headers a client may use (content type, request ids, rate-limit state,
 * Retry-After); everything else (cookies, organisation ids, hop-by-hop, CDN noise) stays
 * behind. Their values still need `scrubSecrets` before they are written.
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

/**
 * Relayed header values with every configured secret masked: some providers echo the key they
 * were sent into a request id. An `includes` per value and secret, on every answer.
 */
export function scrubSecrets(headers: OutgoingHttpHeaders, secrets: readonly string[]): void {
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') headers[name] = scrubbed(value, secrets);
    else if (Array.isArray(value)) headers[name] = value.map((v) => scrubbed(v, secrets));
  }
}

function scrubbed(value: string, secrets: readonly string[]): string {
  for (const secret of secrets) {
    if (secret.length >= 4 && value.includes(secret)) return redactSecrets(value, secrets);
  }
  return value;
}
