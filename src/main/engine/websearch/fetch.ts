// Sends one backend call with a deadline and a size bound. Errors name the backend and what
// went wrong, never the URL (it may carry credentials) nor anything a header carried.
import type { BackendCall } from './types';

export interface FetchLimits {
  /** The whole call, headers and body, ends by then. */
  timeoutMs: number;
  /** A longer answer is cut and refused. */
  maxBytes: number;
  /** The client went away: the search stops too. */
  signal?: AbortSignal;
}

export type Fetched = { ok: true; body: unknown } | { ok: false; reason: string };

/** A network error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`), or a neutral word. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'network error';
}

export async function fetchBackend(
  name: string,
  call: BackendCall,
  limits: FetchLimits,
): Promise<Fetched> {
  // Loaded on the first search: undici's index is costly, and most gateways never search.
  const { request } = await import('undici');
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([timeout.signal, limits.signal]) : timeout.signal;
  try {
    const res = await request(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
      signal,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    // Destroying the body below makes it emit an abort error nobody else waits for.
    res.body.on('error', () => {});
    if (res.statusCode < 200 || res.statusCode >= 300) {
      res.body.destroy();
      return { ok: false, reason: `${name} answered HTTP ${res.statusCode}` };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limits.maxBytes) {
        res.body.destroy();
        return { ok: false, reason: `${name}'s answer is larger than ${limits.maxBytes} bytes` };
      }
      chunks.push(chunk as Buffer);
    }
    try {
      return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
    } catch {
      // A RangeError from absurd nesting lands here too.
      return { ok: false, reason: `${name} answered with something that is not JSON` };
    }
  } catch (err) {
    if (limits.signal?.aborted) return { ok: false, reason: 'the client went away' };
    if (timeout.signal.aborted || codeOf(err).includes('TIMEOUT')) {
      return { ok: false, reason: `${name} did not answer within ${limits.timeoutMs / 1000} s` };
    }
    return { ok: false, reason: `${name} could not be reached (${codeOf(err)})` };
  } finally {
    clearTimeout(timer);
  }
}
