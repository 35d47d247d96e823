import type { KeyLimitName } from '../../../../shared/contract';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

const WHAT: Record<KeyLimitName, (n: number) => string> = {
  requestsPerMinute: (n) => `${n} requests per minute`,
  tokensPerDay: (n) => `${n} tokens per day`,
  usdPerDay: (n) => `${n} USD per day`,
  usdPerMonth: (n) => `${n} USD per month`,
};

/**
 * Request stage: the presenting key's budgets (requests per minute, tokens and USD per day, USD
 * per month). A key at a limit is answered 429 `budget_exceeded` before anything is routed or
 * sent upstream, with `Retry-After` until that limit's window resets.
 */
export const budget: RequestStage = {
  name: 'budget',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    const limits = ctx.key?.limits;
    if (!ctx.key || !limits || !deps.budgets) return CONTINUE;
    const d = deps.budgets.admit(ctx.key.name, limits, ctx.now());
    if (d.kind === 'allow') return CONTINUE;
    const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
    return reply({
      status: 429,
      kind: 'rate_limit',
      code: 'budget_exceeded',
      message: `gateway key "${ctx.key.name}" reached its limit of ${WHAT[d.limit](d.max)}; it resets in ${seconds} s`,
      headers: { 'retry-after': String(seconds), 'x-breakwater-budget-limit': d.limit },
      extra: { limit: d.limit, used: d.used, max: d.max },
    });
  },
};
