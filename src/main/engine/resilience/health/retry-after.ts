/**
 * Reading "when may I try again" from what an upstream says: headers first, then a hint in the
 * error text. Every parser returns milliseconds from `now`, or null when it cannot tell.
 */

export type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** `1m30s`, `6ms`, `20s`, `1h2m3.5s`, `0.5s` (OpenAI's x-ratelimit-reset-* style). */
export function parseCompactDuration(text: string): number | null {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) return null;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g))
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(total);
}

/** An absolute time (RFC 3339 / ISO 8601 or HTTP date) as ms from now; past times give 0. */
export function parseTimestamp(text: string, now: number): number | null {
  const s = text.trim();
  if (!/\d{4}-\d{2}-\d{2}T|GMT|UTC|[A-Z][a-z]{2}, \d{1,2} /.test(s)) return null;
  const at = Date.parse(s);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** `Retry-After`: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  return parseTimestamp(v, now);
}

/** A reset header value: a compact duration, plain seconds, or a timestamp. */
function parseResetValue(value: string, now: number): number | null {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    // Epoch seconds (some gateways) versus a delta in seconds.
    return n > 1e9 ? Math.max(0, n * 1000 - now) : Math.round(n * 1000);
  }
  return parseCompactDuration(v) ?? parseTimestamp(v, now);
}

/**
 * Rate-limit reset headers: OpenAI `x-ratelimit-reset-requests` / `-tokens` and Anthropic
 * `anthropic-ratelimit-*-reset`. When a `remaining` header shows which budget ran out, that
 * budget's reset wins; otherwise the longest, since waiting less would just fail again.
 */
export function parseResetHeaders(headers: Headers, now: number): number | null {
  const resets: { name: string; ms: number }[] = [];
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const isReset =
      /^x-ratelimit-reset(-|$)/.test(name) ||
      (/^anthropic-ratelimit-.+-reset$/.test(name) && !name.includes('unified'));
    if (!isReset) continue;
    const ms = parseResetValue(Array.isArray(raw) ? raw[0]! : raw, now);
    if (ms !== null) resets.push({ name, ms });
  }
  if (resets.length === 0) return null;
  const exhausted = resets.filter((r) => {
    const remaining = header(headers, r.name.replace(/reset/, 'remaining'));
    return remaining !== undefined && Number(remaining) === 0;
  });
  const pool = exhausted.length > 0 ? exhausted : resets;
  return Math.max(...pool.map((r) => r.ms));
}

/** "try again in 20s", "retry after 1m30s", "please wait 30 seconds", "resets at <time>". */
export function parseResetText(text: string, now: number): number | null {
  const rel =
    /(?:try again|retry|wait|available again|reset[s]?)\s+(?:in|after)?\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b/i.exec(
      text,
    );
  if (rel) return Math.round(Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!);
  const compact =
    /(?:try again|retry|wait)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?(?:ms|s|m|h))+)/i.exec(text);
  if (compact) return parseCompactDuration(compact[1]!);
  const abs =
    /reset[s]?\s+(?:at|on)\s+([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:Z|[+-][0-9:]+)?)/i.exec(text);
  if (abs) return parseTimestamp(abs[1]!, now);
  return null;
}

/** What the upstream announced, in order of trust: Retry-After, reset headers, error text. */
export function announcedRetryMs(headers: Headers, bodyText: string, now: number): number | null {
  return (
    parseRetryAfter(header(headers, 'retry-after'), now) ??
    parseResetHeaders(headers, now) ??
    parseResetText(bodyText, now)
  );
}
