// Gateway-key budgets in team mode (issue 16): each key's use per window is also counted in
// Redis, so a key's limits hold across every instance. A request is admitted by one script that
// reads the key's four counters and counts it; tokens and cost are added once it is answered.
// The local book keeps counting too: it answers alone whenever Redis cannot (fail-open).

import type { KeyLimits } from '../../../shared/contract';
import type { CounterAdd, SharedCounter, StateBackend } from '../state/backend';
import { type BudgetDecision, decideBudget, windowsAt } from './budget';

function ids(key: string, now: number) {
  const w = windowsAt(now);
  const base = `budget:${key}:`;
  return {
    w,
    requests: { id: `${base}requests:${w.minuteStart}`, ttlMs: w.minuteEnd - now },
    tokens: { id: `${base}tokens:${w.dayStart}`, ttlMs: w.dayEnd - now },
    usdDay: { id: `${base}usd:${w.dayStart}`, ttlMs: w.dayEnd - now },
    usdMonth: { id: `${base}usd-month:${w.monthStart}`, ttlMs: w.monthEnd - now },
  };
}

/**
 * The team's decision for one request of `key`: counted in Redis when no limit is reached, else
 * the limit reached, as `decideBudget` names it. Null when Redis cannot answer.
 */
export async function admitShared(
  shared: StateBackend,
  key: string,
  limits: KeyLimits,
  now: number,
): Promise<BudgetDecision | null> {
  const k = ids(key, now);
  const counters: SharedCounter[] = [
    { ...k.requests, max: limits.requestsPerMinute ?? null },
    { ...k.tokens, max: limits.tokensPerDay ?? null },
    { ...k.usdDay, max: limits.usdPerDay ?? null },
    { ...k.usdMonth, max: limits.usdPerMonth ?? null },
  ];
  const r = await shared.admitCounters(counters);
  if (!r) return null;
  const [requests = 0, tokens = 0, usdDay = 0, usdMonth = 0] = r.used;
  const c = {
    minuteStart: k.w.minuteStart,
    requestsThisMinute: requests,
    dayStart: k.w.dayStart,
    tokensToday: tokens,
    usdToday: usdDay,
    monthStart: k.w.monthStart,
    usdThisMonth: usdMonth,
  };
  return r.admitted ? { kind: 'allow' } : decideBudget(limits, c, now);
}

/** An answered request's tokens and cost, added to the team's counters of its key. */
export function chargeShared(
  shared: StateBackend,
  key: string,
  tokens: number,
  usd: number,
  now: number,
): void {
  const k = ids(key, now);
  const adds: CounterAdd[] = [
    { ...k.tokens, by: tokens },
    { ...k.usdDay, by: usd },
    { ...k.usdMonth, by: usd },
  ];
  shared.addCounters(adds);
}
