import type { KeyLimitName } from '../../../../shared/contract';
import type { BudgetDecision } from '../../usage/budget';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

const WHAT: Record<KeyLimitName, (n: number) => string> = {
  requestsPerMinute: (n) => `${n} requests per minute`,
  tokensPerDay: (n) => `${n} tokens per day`,
  usdPerDay: (n) => `${n} USD per day`,
  usdPerMonth: (n) => `${n} USD per month`,
};

/** 429 `budget_exceeded` in the client's format, naming the limit and when to retry. */
export function budgetReply(keyName: string, d: BudgetDecision & { kind: 'over' }): Decision {
  const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
  const why =
    d.asked === undefined
      ? `reached its limit of ${WHAT[d.limit](d.max)}; it resets in ${seconds} s`
      : d.used + d.asked <= d.max
        ? `has ${WHAT[d.limit](d.max)} and requests in flight hold what is left; retry in ${seconds} s`
        : `has ${WHAT[d.limit](d.max)}, and this request's estimate (input plus max_tokens) does not fit in what is left; it resets in ${seconds} s`;
  return reply({
    status: 429,
    kind: 'rate_limit',
    code: 'budget_exceeded',
    message: `gateway key "${keyName}" ${why}`,
    headers: { 'retry-after': String(seconds), 'x-breakwater-budget-limit': d.limit },
    extra: { limit: d.limit, used: d.used, max: d.max },
  });
}

/**
 * Request stage: the presenting key's budgets (requests per minute, tokens and USD per day, USD
 * per month). A key at a limit is answered 429 `budget_exceeded` before anything is routed or
 * sent upstream, with `Retry-After` until that limit's window resets. In team mode the limits
 * hold across instances (usage/team-budget.ts).
 */
export const budget: RequestStage = {
  name: 'budget',
  run(ctx: RequestContext, deps: PipelineDeps): Decision | Promise<Decision> {
    const limits = ctx.key?.limits;
    const budgets = deps.budgets;
    const key = ctx.key;
    if (!key || !limits || !budgets) return CONTINUE;
    const local = (): Decision => {
      const d = budgets.admit(key.name, limits, ctx.now());
      return d.kind === 'allow' ? CONTINUE : budgetReply(key.name, d);
    };
    if (!budgets.admitTeam) return local();
    // Team mode: the team's counters decide first (one Redis round trip), then this instance's
    // own book counts the request too, and answers alone when Redis cannot.
    return budgets
      .admitTeam(key.name, limits, ctx.now())
      .then((d) => (d?.kind === 'over' ? budgetReply(key.name, d) : local()));
  },
};
