// What each gateway key used in its limits' windows, in memory: the budget stage reads it on
// the request path, the record stage adds to it, and at start it is seeded from the roll-ups so
// a restart forgets nothing of today or this month.

import type { KeyLimits, KeySpend } from '../../../shared/contract';
import type { UsageRollupRepo } from '../store';
import {
  ALLOW,
  type BudgetDecision,
  crossed,
  current,
  decideBudget,
  decideReservation,
  emptyCounters,
  type Hold,
  hasAnyLimit,
  type KeyCounters,
  NO_HOLD,
  NO_THRESHOLDS,
  type Threshold,
  windowsAt,
} from './budget';

/**
 * A request's estimate held against its key's budgets until its answer ends. Released in
 * `finally` (the reserve stage's `after`), just before the actual usage is charged, in the
 * same turn; releasing twice does nothing.
 */
export class BudgetReservation {
  private live = true;

  constructor(private readonly giveBack: () => void) {}

  release(): void {
    if (!this.live) return;
    this.live = false;
    this.giveBack();
  }
}

const UNLIMITED = Object.freeze({ decision: ALLOW, crossed: NO_THRESHOLDS });

export class BudgetBook {
  private readonly counters = new Map<string, KeyCounters>();
  /** What requests in flight hold per key (not tied to a window: they end within minutes). */
  private readonly holds = new Map<string, Hold>();

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
  ): { decision: BudgetDecision; crossed: readonly Threshold[] } {
    const c = this.at(key, now);
    // Without limits there is nothing to decide or warn about: the request is only counted.
    if (!hasAnyLimit(limits)) {
      c.requestsThisMinute++;
      return UNLIMITED;
    }
    const decision = decideBudget(limits, c, now);
    if (decision.kind === 'over') return { decision, crossed: [] };
    const after = { ...c, requestsThisMinute: c.requestsThisMinute + 1 };
    this.counters.set(key, after);
    return { decision, crossed: crossed(limits, c, after, now) };
  }

  /**
   * Holds `ask` against the key's token and USD limits if it fits with what is used and held
   * already; the check and the hold happen in one step, so concurrent requests see each other.
   */
  reserve(
    key: string,
    limits: KeyLimits,
    ask: Hold,
    now: number,
  ): { decision: BudgetDecision; reservation: BudgetReservation | null } {
    const held = this.held(key);
    const decision = decideReservation(limits, this.at(key, now), held, ask, now);
    if (decision.kind === 'over') return { decision, reservation: null };
    this.holds.set(key, { tokens: held.tokens + ask.tokens, usd: held.usd + ask.usd });
    return {
      decision,
      reservation: new BudgetReservation(() => {
        const h = this.held(key);
        const left = { tokens: h.tokens - ask.tokens, usd: h.usd - ask.usd };
        if (left.tokens <= 0 && left.usd <= 1e-12) this.holds.delete(key);
        else this.holds.set(key, left);
      }),
    };
  }

  /** What the key's requests in flight hold. */
  held(key: string): Hold {
    return this.holds.get(key) ?? NO_HOLD;
  }

  /** Adds an answered request's tokens and cost; returns the thresholds it crossed. */
  charge(
    key: string,
    limits: KeyLimits,
    tokens: number,
    usd: number,
    now: number,
  ): readonly Threshold[] {
    const c = this.at(key, now);
    if (!hasAnyLimit(limits)) {
      c.tokensToday += tokens;
      c.usdToday += usd;
      c.usdThisMonth += usd;
      return NO_THRESHOLDS;
    }
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
