// Remaining quota and reset times as providers announce them in response headers:
// OpenAI-style `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset as "6m0s", "20ms"),
// Anthropic `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
// (reset RFC 3339) and
// the subscription `anthropic-ratelimit-unified-*` (5-hour and weekly utilization 0-1, reset in
// epoch seconds).

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** One limit: how much is left of how much, and when it refills (epoch ms); null when unsaid. */
export interface QuotaWindow {
  remaining: number | null;
  limit: number | null;
  resetAt: number | null;
}

export interface Quota {
  requests: QuotaWindow | null;
  tokens: QuotaWindow | null;
  /** Anthropic's separate input- and output-token limits (API keys on newer tiers). */
  inputTokens: QuotaWindow | null;
  outputTokens: QuotaWindow | null;
  /** Subscription accounts: percent left (of 100) of the 5-hour and the weekly window. */
  fiveHour: QuotaWindow | null;
  weekly: QuotaWindow | null;
  learnedAt: number;
}

export const QUOTA_WINDOWS = [
  'requests',
  'tokens',
  'inputTokens',
  'outputTokens',
  'fiveHour',
  'weekly',
] as const;

/** A quota with no window known yet. */
export function emptyQuota(learnedAt: number): Quota {
  const out = { learnedAt } as Quota;
  for (const k of QUOTA_WINDOWS) out[k] = null;
  return out;
}

function header(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function num(v: string | undefined): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "1h2m3.5s", "20ms", a number of seconds, an RFC 3339 date, or epoch seconds → epoch ms. */
export function resetTime(v: string | undefined, now: number): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = num(v);
  // Epoch seconds are large; small numbers are seconds from now.
  if (n !== null) return n > 1e9 ? n * 1000 : now + n * 1000;
  let ms = 0;
  let matched = '';
  for (const m of v.matchAll(DURATION_PART)) {
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched += m[0];
  }
  if (matched.length > 0 && matched === v.trim()) return now + ms;
  const date = Date.parse(v);
  return Number.isFinite(date) ? date : null;
}

interface WindowNames {
  remaining: string;
  limit: string;
  reset: string;
}

function window(h: Headers, now: number, names: WindowNames): QuotaWindow | null {
  const remaining = num(header(h, names.remaining));
  const limit = num(header(h, names.limit));
  const resetAt = resetTime(header(h, names.reset), now);
  if (remaining === null && limit === null && resetAt === null) return null;
  return { remaining, limit, resetAt };
}

const openAi = (kind: string): WindowNames => ({
  remaining: `x-ratelimit-remaining-${kind}`,
  limit: `x-ratelimit-limit-${kind}`,
  reset: `x-ratelimit-reset-${kind}`,
});
const anthropic = (kind: string): WindowNames => ({
  remaining: `anthropic-ratelimit-${kind}-remaining`,
  limit: `anthropic-ratelimit-${kind}-limit`,
  reset: `anthropic-ratelimit-${kind}-reset`,
});
// The header names, made once: every answer is looked at, most of them announce nothing.
const REQUESTS = [openAi('requests'), anthropic('requests')] as const;
const TOKENS = [openAi('tokens'), anthropic('tokens')] as const;
const INPUT_TOKENS = anthropic('input-tokens');
const OUTPUT_TOKENS = anthropic('output-tokens');

/** Whether any header could announce a quota: most answers carry none. */
function mentionsRateLimit(h: Headers): boolean {
  for (const name in h) {
    if (name.startsWith('x-ratelimit-') || name.startsWith('anthropic-ratelimit-')) return true;
  }
  return false;
}

/** The quota a response announces, or null when it carries no rate-limit header. */
export function quotaFromHeaders(h: Headers, now: number): Quota | null {
  if (!mentionsRateLimit(h)) return null;
  const out = emptyQuota(now);
  out.requests = window(h, now, REQUESTS[0]) ?? window(h, now, REQUESTS[1]);
  out.tokens = window(h, now, TOKENS[0]) ?? window(h, now, TOKENS[1]);
  out.inputTokens = window(h, now, INPUT_TOKENS);
  out.outputTokens = window(h, now, OUTPUT_TOKENS);
  out.fiveHour = unified(h, now, '5h', 'anthropic-ratelimit-unified-reset');
  out.weekly = unified(h, now, '7d');
  return QUOTA_WINDOWS.some((w) => out[w] !== null) ? out : null;
}

/** A unified window (`5h`, `7d`) as percent left of 100; the 5-hour one may reset per `fallbackReset`. */
function unified(
  h: Headers,
  now: number,
  span: string,
  fallbackReset?: string,
): QuotaWindow | null {
  const utilization = num(header(h, `anthropic-ratelimit-unified-${span}-utilization`));
  const resetAt =
    resetTime(header(h, `anthropic-ratelimit-unified-${span}-reset`), now) ??
    (fallbackReset ? resetTime(header(h, fallbackReset), now) : null);
  if (utilization === null && resetAt === null) return null;
  return {
    remaining: utilization === null ? null : Math.max(0, 1 - utilization) * 100,
    limit: utilization === null ? null : 100,
    resetAt,
  };
}

/** The smaller share left of the known limits (0-1), or null when no limit is known. */
export function remainingShare(q: Quota): number | null {
  let share: number | null = null;
  for (const w of QUOTA_WINDOWS.map((k) => q[k])) {
    if (w?.remaining == null || w.limit == null || w.limit <= 0) continue;
    const s = Math.max(0, Math.min(1, w.remaining / w.limit));
    share = share === null ? s : Math.min(share, s);
  }
  return share;
}

/** The soonest announced reset (epoch ms), or null. */
export function nextReset(q: Quota): number | null {
  const times = QUOTA_WINDOWS.map((k) => q[k]?.resetAt).filter((t): t is number => t != null);
  return times.length > 0 ? Math.min(...times) : null;
}
