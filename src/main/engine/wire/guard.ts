import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  // A real dotted quad only: a hostname such as `127.0.0.1.nip.io` must not pass as loopback.
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return m?.slice(1).every((octet) => Number(octet) <= 255) ?? false;
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || isLoopbackAddress(host);
}

/** Hostname part of a Host header (`[::1]:4141` → `[::1]`, `localhost:4141` → `localhost`). */
function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end > 0 ? hostHeader.slice(0, end + 1) : hostHeader;
  }
  const colon = hostHeader.indexOf(':');
  return (colon >= 0 ? hostHeader.slice(0, colon) : hostHeader).toLowerCase();
}

export interface OriginPolicy {
  /** Bound host; Host and Origin checks protect loopback binds against DNS rebinding. */
  host: string;
}

/**
 * Refuses a Host that is not this machine's loopback name or the bound address (DNS
 * rebinding), and any browser Origin other than the gateway itself (cross-site requests from a
 * web page). Returns the reason, or null when the request may proceed.
 */
export function checkHostAndOrigin(
  headers: IncomingHttpHeaders,
  policy: OriginPolicy,
): string | null {
  const hostHeader = headers.host;
  if (!hostHeader) return 'missing Host header';
  const hostname = hostnameOf(hostHeader);
  const bound =
    policy.host.includes(':') && !policy.host.startsWith('[') ? `[${policy.host}]` : policy.host;
  const wildcard = policy.host === '0.0.0.0' || policy.host === '::';
  if (!wildcard && !isLoopbackHost(hostname) && hostname !== bound.toLowerCase()) {
    return `Host "${hostHeader}" is not this gateway (DNS rebinding protection)`;
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let originHost: string;
    try {
      const url = new URL(origin);
      originHost = url.host;
    } catch {
      return `Origin "${origin}" is not allowed`;
    }
    if (originHost.toLowerCase() !== hostHeader.toLowerCase()) {
      return `Origin "${origin}" is not allowed: only the gateway's own pages may call it from a browser`;
    }
  }
  return null;
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** The key a client presented (`Authorization: Bearer` or `x-api-key`), if any. */
export function presentedKey(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    // What SDKs send, taken without a regular expression on every request.
    if (auth.startsWith('Bearer ')) return auth.slice(7).trim();
    if (/^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x.length > 0 ? x : null;
}

export function checkAdminToken(headers: IncomingHttpHeaders, token: string): boolean {
  const auth = headers.authorization;
  if (typeof auth !== 'string' || !/^bearer\s+/i.test(auth)) return false;
  return safeEqual(auth.replace(/^bearer\s+/i, '').trim(), token);
}

/** True for `application/json` and `application/<x>+json`, with any parameters. */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  // What SDKs send, decided without splitting and lower-casing a copy.
  if (value === 'application/json') return true;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
