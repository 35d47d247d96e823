// "Test a connection" (`POST /api/connections/{id}/test`): one cheap, side-effect-free,
// authenticated call with a connection's credential, answered as a diagnostic. It never goes
// through the proxy pipeline, so its outcome never reaches the breaker, cooldowns, lockouts or
// the request log, and the secret never appears in what it returns.

import type { request } from 'undici';
import type { ConnectionTestResult } from '../../../shared/contract';
import type { CatalogConnection, CatalogProvider } from '../config/catalog';
import { redactSecrets } from '../logger';
import { modelIdsOf } from '../setup/detect';
import { classifyAttemptError, readBounded } from '../upstream/attempt';
import { credentialHeaders } from '../upstream/headers';
import { readUpstreamError } from '../upstream/upstream-errors';

/** Whole-call deadline: connect, headers and body together. */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;
/** Enough of a models list or an error body to read a message from. */
const BODY_LIMIT = 256 * 1024;
/** Same default the proxy sends when the client names no version (headers.ts). */
const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic accepts subscription (OAuth) tokens on its API only with this beta. */
const OAUTH_BETA = 'oauth-2025-04-20';

export interface ConnectionTestTarget {
  provider: Pick<CatalogProvider, 'id' | 'format' | 'baseUrl' | 'authClass'>;
  connection: Pick<CatalogConnection, 'id' | 'apiKeyEnv'>;
  /** The credential (`catalog.secretOf(conn)`), null when none is configured. */
  secret: string | null;
  /** Every secret to scrub from upstream text (the connection's own is always added). */
  scrub?: readonly string[];
}

export interface ConnectionTestOptions {
  /** undici `request` (injected by unit tests). */
  http?: typeof request;
  timeoutMs?: number;
  /** Monotonic milliseconds for the latency. */
  now?: () => number;
  userAgent?: string;
}

/** The probe for a provider: its models list, which needs the key and changes nothing. */
export function connectionTestCall(
  provider: ConnectionTestTarget['provider'],
  secret: string | null,
  userAgent = 'breakwater',
): { url: string; headers: Record<string, string> } {
  const base = provider.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-encoding': 'identity',
    'user-agent': userAgent,
  };
  if (provider.format === 'anthropic') {
    headers['anthropic-version'] = ANTHROPIC_VERSION;
    if (provider.authClass === 'oauth') headers['anthropic-beta'] = OAUTH_BETA;
  }
  Object.assign(headers, credentialHeaders(provider, secret));
  // OpenAI-style base URLs already end in /v1; Anthropic's is the bare origin.
  const url = provider.format === 'anthropic' ? `${base}/v1/models` : `${base}/models`;
  return { url, headers };
}

function noKeyMessage(connection: ConnectionTestTarget['connection']): string {
  return connection.apiKeyEnv
    ? `no API key: environment variable ${connection.apiKeyEnv} is not set (or empty) where the gateway runs`
    : 'no API key: the connection has neither a stored key nor apiKeyEnv';
}

/** The upstream's own words, scrubbed of secrets, or null for an empty body. */
function upstreamText(raw: Buffer, secrets: readonly string[]): string | null {
  const message = readUpstreamError(raw, secrets).message.trim().replace(/\s+/g, ' ').slice(0, 300);
  return message === '' ? null : message;
}

/** The ids of a models-list answer, for the setup wizard's model pickers; null if not a list. */
function listedModels(raw: Buffer): string[] | null {
  try {
    return modelIdsOf(JSON.parse(raw.toString('utf8')));
  } catch {
    return null;
  }
}

function describeStatus(
  status: number,
  where: string,
  detail: string | null,
  hasKey: boolean,
): string {
  const tail = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return hasKey
      ? `the provider refused the key (HTTP ${status})${tail}`
      : `the provider wants a key (HTTP ${status}) and this connection has none${tail}`;
  }
  if (status === 404) return `HTTP 404 at ${where}: check the base URL${tail}`;
  if (status === 429) return `rate limited (HTTP 429)${tail}`;
  if (status >= 500) return `the provider failed (HTTP ${status})${tail}`;
  return `unexpected HTTP ${status} at ${where}${tail}`;
}

function describeNetworkError(err: unknown, signal: AbortSignal, host: string, ms: number): string {
  if (signal.aborted) {
    const limit = ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
    return `no answer from ${host} within ${limit} (timed out)`;
  }
  const failure = classifyAttemptError(err, new AbortController().signal);
  if (failure.kind !== 'network') return `cannot reach ${host}`;
  if (failure.errorClass.startsWith('timeout_')) {
    return `cannot reach ${host}: timed out (${failure.message})`;
  }
  // A known code (refused, DNS, reset, …) has its plain-words message; anything else comes back
  // as the top-level text ("fetch failed"), so the innermost cause says more.
  const unknown = failure.message === (err as { message?: unknown } | null)?.message;
  return `cannot reach ${host}: ${unknown ? innermost(err) : failure.message}`;
}

/** undici wraps socket errors ("fetch failed"); the informative message is the innermost. */
function innermost(err: unknown): string {
  let e = err as { message?: unknown; cause?: unknown } | undefined;
  let message = 'request failed';
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.message === 'string' && e.message !== '') message = e.message;
    e = e.cause as typeof e;
  }
  return message;
}

/**
 * Runs the probe. Never throws: every outcome (no key, refused key, network error, timeout) is
 * a result with a message safe to show and log.
 */
export async function testConnection(
  target: ConnectionTestTarget,
  opts: ConnectionTestOptions = {},
): Promise<ConnectionTestResult> {
  const now = opts.now ?? (() => performance.now());
  const timeoutMs = opts.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const { provider, connection, secret } = target;
  const secrets = [...(secret ? [secret] : []), ...(target.scrub ?? [])];
  if (!secret && provider.authClass !== 'local') {
    return { ok: false, status: null, latencyMs: 0, message: noKeyMessage(connection) };
  }
  const { url, headers } = connectionTestCall(provider, secret, opts.userAgent);
  const parsedUrl = new URL(url);
  // Only host and path are ever shown: a base URL may carry userinfo or a query.
  const host = parsedUrl.host;
  const where = `GET ${parsedUrl.pathname}`;
  // Loaded on first use: undici's index (fetch, WebSocket, caching) is most of its load time,
  // and the proxy path needs only its pool (upstream/pools.ts).
  const http = opts.http ?? (await import('undici')).request;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const started = now();
  const latency = () => Math.max(0, Math.round(now() - started));
  try {
    const res = await http(url, {
      method: 'GET',
      headers,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const raw = await readBounded(res.body, BODY_LIMIT);
    const latencyMs = latency();
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      const models = listedModels(raw);
      const count = models?.length ?? null;
      const listed = count === null ? '' : ` (${count} model${count === 1 ? '' : 's'} listed)`;
      return {
        ok: true,
        status,
        latencyMs,
        message: `${secret ? 'key accepted' : 'reachable'}: ${where} answered HTTP ${status}${listed}`,
        ...(models ? { models } : {}),
      };
    }
    return {
      ok: false,
      status,
      latencyMs,
      message: describeStatus(status, where, upstreamText(raw, secrets), secret !== null),
    };
  } catch (err) {
    return {
      ok: false,
      status: null,
      latencyMs: latency(),
      message: redactSecrets(
        describeNetworkError(err, controller.signal, host, timeoutMs),
        secrets,
      ),
    };
  } finally {
    clearTimeout(timer);
  }
}
