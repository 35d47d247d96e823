// Budgets per gateway key, as pure decisions with the time given: requests per minute, tokens
// per day, USD per day and per month. Windows are calendar windows in UTC (a minute, a day, a
// month), so "per day" resets at midnight UTC and `Retry-After` says exactly when.

import type { KeyLimitName, KeyLimits } from '../../../shared/contract';

/** What a key used in the windows that contain `now` (see `windowsAt`). */
export interface KeyCounters {
  minuteStart: number;
  requestsThisMinute: number;
  dayStart: number;
  tokensToday: number;
  usdToday: number;
  monthStart: number;
  usdThisMonth: number;
}

export interface Windows {
  minuteStart: number;
  minuteEnd: number;
  dayStart: number;
  dayEnd: number;
  monthStart: number;
  monthEnd: number;
}

export type BudgetDecision =
  | { kind: 'allow' }
  | {
      kind: 'over';
      limit: KeyLimitName;
      used: number;
      max: number;
      retryAfterMs: number;
      /** A reservation that did not fit: what this request asked, and what others in flight hold. */
      asked?: number;
      held?: number;
    };

/** Tokens and USD a request holds against its key's budgets while it runs (an estimate). */
export interface Hold {
  tokens: number;
  usd: number;
}

export const NO_HOLD: Hold = { tokens: 0, usd: 0 };

/** Refused only because requests in flight hold the rest: they end soon, so retry soon. */
export const IN_FLIGHT_RETRY_MS = 1000;

export interface Threshold {
  limit: KeyLimitName;
  used: number;
  max: number;
  resetsAt: number;
}

/** A budget warning is announced at this share of a limit. */
export const WARN_AT = 0.8;

export const ALLOW: BudgetDecision = Object.freeze({ kind: 'allow' });
export const NO_THRESHOLDS: readonly Threshold[] = Object.freeze([]);

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The windows of the last minute asked about: every request of that minute asks again. */
let lastWindows: Windows | null = null;

export function windowsAt(now: number): Windows {
  const minuteStart = now - (now % MINUTE_MS);
  // Day and month start on a minute, so one minute's windows are all the same.
  if (lastWindows?.minuteStart === minuteStart) return lastWindows;
  const dayStart = now - (now % DAY_MS);
  const d = new Date(now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  lastWindows = Object.freeze({
    minuteStart,
    minuteEnd: minuteStart + MINUTE_MS,
    dayStart,
    dayEnd: dayStart + DAY_MS,
    monthStart,
    monthEnd,
  });
  return lastWindows;
}

/** Whether any limit is set: a key without one is counted, never checked or warned about. */
export function hasAnyLimit(l: KeyLimits): boolean {
  return (
    l.requestsPerMinute !== undefined ||
    l.tokensPerDay !== undefined ||
    l.usdPerDay !== undefined ||
    l.usdPerMonth !== undefined
  );
}

/** The counters as of `now`: a window that has ended starts again from zero. */
export function current(c: KeyCounters, now: number): KeyCounters {
  const w = windowsAt(now);
  const same =
    c.minuteStart === w.minuteStart && c.dayStart === w.dayStart && c.monthStart === w.monthStart;
  if (same) return c;
  return {
    minuteStart: w.minuteStart,
    requestsThisMinute: c.minuteStart === w.minuteStart ? c.requestsThisMinute : 0,
    dayStart: w.dayStart,
    tokensToday: c.dayStart === w.dayStart ? c.tokensToday : 0,
    usdToday: c.dayStart === w.dayStart ? c.usdToday : 0,
    monthStart: w.monthStart,
    usdThisMonth: c.monthStart === w.monthStart ? c.usdThisMonth : 0,
  };
}

export function emptyCounters(now: number): KeyCounters {
  const w = windowsAt(now);
  return {
    minuteStart: w.minuteStart,
    requestsThisMinute: 0,
    dayStart: w.dayStart,
    tokensToday: 0,
    usdToday: 0,
    monthStart: w.monthStart,
    usdThisMonth: 0,
  };
}

interface LimitView {
  limit: KeyLimitName;
  used: number;
  resetsAt: number;
}

function usedIn(c: KeyCounters, w: Windows): LimitView[] {
  return [
    { limit: 'requestsPerMinute', used: c.requestsThisMinute, resetsAt: w.minuteEnd },
    { limit: 'tokensPerDay', used: c.tokensToday, resetsAt: w.dayEnd },
    { limit: 'usdPerDay', used: c.usdToday, resetsAt: w.dayEnd },
    { limit: 'usdPerMonth', used: c.usdThisMonth, resetsAt: w.monthEnd },
  ];
}

/**
 * Whether one more request of this key may go. A key at or over a limit is refused until the
 * window resets; when several are hit, the one that resets last is named (waiting out an earlier
 * one would not help).
 */
export function decideBudget(
  limits: KeyLimits,
  counters: KeyCounters,
  now: number,
): BudgetDecision {
  const c = current(counters, now);
  let over: BudgetDecision = ALLOW;
  for (const v of usedIn(c, windowsAt(now))) {
    const max = limits[v.limit];
    if (max === undefined || v.used < max) continue;
    const retryAfterMs = v.resetsAt - now;
    if (over.kind === 'allow' || retryAfterMs > over.retryAfterMs) {
      over = { kind: 'over', limit: v.limit, used: v.used, max, retryAfterMs };
    }
  }
  return over;
}

/** The limits whose use went from under `WARN_AT` to at or over it between two counters. */
export function crossed(
  limits: KeyLimits,
  before: KeyCounters,
  after: KeyCounters,
  now: number,
): Threshold[] {
  const w = windowsAt(now);
  const was = usedIn(current(before, now), w);
  const out: Threshold[] = [];
  usedIn(after, w).forEach((v, i) => {
    const max = limits[v.limit];
    if (max === undefined) return;
    if (was[i]!.used < max * WARN_AT && v.used >= max * WARN_AT) {
      out.push({ limit: v.limit, used: v.used, max, resetsAt: v.resetsAt });
    }
  });
  return out;
}

/**
 * Whether a request's estimate (`ask`: input plus `max_tokens` of output, priced) fits in what
 * its key has left of each token and USD limit, counting what requests still in flight hold
 * (`held`), so concurrent requests cannot jointly overshoot. The limit named is the first that
 * does not fit; a refusal only because of requests in flight says to retry in a second.
 */
export function decideReservation(
  limits: KeyLimits,
  counters: KeyCounters,
  held: Hold,
  ask: Hold,
  now: number,
): BudgetDecision {
  const c = current(counters, now);
  const w = windowsAt(now);
  const checks = [
    {
      limit: 'tokensPerDay',
      used: c.tokensToday,
      held: held.tokens,
      ask: ask.tokens,
      end: w.dayEnd,
    },
    { limit: 'usdPerDay', used: c.usdToday, held: held.usd, ask: ask.usd, end: w.dayEnd },
    { limit: 'usdPerMonth', used: c.usdThisMonth, held: held.usd, ask: ask.usd, end: w.monthEnd },
  ] as const;
  for (const x of checks) {
    const max = limits[x.limit];
    if (max === undefined || x.used + x.held + x.ask <= max) continue;
    const alone = x.used + x.ask <= max;
    return {
      kind: 'over',
      limit: x.limit,
      used: x.used,
      max,
      retryAfterMs: alone ? IN_FLIGHT_RETRY_MS : x.end - now,
      asked: x.ask,
      held: x.held,
    };
  }
  return ALLOW;
}
