// What each gateway key used in its limits' windows, in memory: the budget stage reads it on
// the request path, the record stage adds to it, and at start it is seeded from the roll-ups so
// a restart forgets nothing of today or this month.

import type { KeyLimits, KeySpend } from '../../../shared/contract';
import type { UsageRollupRepo } from '../store';
import {
  type BudgetDecision,
  crossed,
  current,
  decideBudget,
  emptyCounters,
  type KeyCounters,
  type Threshold,
  windowsAt,
} from './budget';

export class BudgetBook {
  private readonly counters = new Map<string, KeyCounters>();

  /** Sums today's and this month's tokens and cost per key from the stored roll-ups. */
  seed(repo: UsageRollupRepo, now: number): void {
    const w = windowsAt(now);
    const month = repo.totals('key', w.monthStart);
    const day = new Map(repo.totals('key', w.dayStart).map((r) => [r.group, r]));
    for (const m of month) {
      if (!m.group) continue;
      const d = day.get(m.group);
      this.counters.set(m.group, {
        ...emptyCounters(now),
        tokensToday: d ? d.inputTokens + d.outputTokens : 0,
        usdToday: d?.costUsd ?? 0,
        usdThisMonth: m.costUsd,
      });
    }
  }

  private at(key: string, now: number): KeyCounters {
    const c = current(this.counters.get(key) ?? emptyCounters(now), now);
    this.counters.set(key, c);
    return c;
  }

  /**
   * Whether a request of this key may go; an allowed one counts towards its requests per minute
   * (a refused one does not, so a client retrying too early is not kept out longer). Also the
   * thresholds that request crossed.
   */
  admit(
    key: string,
    limits: KeyLimits,
    now: number,
  ): { decision: BudgetDecision; crossed: Threshold[] } {
    const c = this.at(key, now);
    const decision = decideBudget(limits, c, now);
    if (decision.kind === 'over') return { decision, crossed: [] };
    const after = { ...c, requestsThisMinute: c.requestsThisMinute + 1 };
    this.counters.set(key, after);
    return { decision, crossed: crossed(limits, c, after, now) };
  }

  /** Adds an answered request's tokens and cost; returns the thresholds it crossed. */
  charge(key: string, limits: KeyLimits, tokens: number, usd: number, now: number): Threshold[] {
    const c = this.at(key, now);
    const after = {
      ...c,
      tokensToday: c.tokensToday + tokens,
      usdToday: c.usdToday + usd,
      usdThisMonth: c.usdThisMonth + usd,
    };
    this.counters.set(key, after);
    return crossed(limits, c, after, now);
  }

  spend(key: string, now: number): KeySpend {
    const c = current(this.counters.get(key) ?? emptyCounters(now), now);
    return {
      requestsThisMinute: c.requestsThisMinute,
      tokensToday: c.tokensToday,
      usdToday: c.usdToday,
      usdThisMonth: c.usdThisMonth,
    };
  }
}
