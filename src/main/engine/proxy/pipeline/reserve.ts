import type { KeyLimits } from '../../../../shared/contract';
import type { Hold } from '../../usage/budget';
import { budgetReply } from './budget';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';
import { callsOf } from './multi-call';
import { inputTokensOf, irOf } from './request-ir';

function hasSpendLimit(l: KeyLimits): boolean {
  return l.tokensPerDay !== undefined || l.usdPerDay !== undefined || l.usdPerMonth !== undefined;
}

/**
 * What the request may spend at most: its estimated input plus `max_tokens` of output (only the
 * input when it sets none), priced at the dearest candidate, since failover may land anywhere.
 * A fusion or pipeline request holds that for each call it makes, and the earlier answers its
 * later calls read as input on top.
 */
function estimate(ctx: RequestContext, deps: PipelineDeps): Hold {
  const output = irOf(ctx).maxTokens ?? 0;
  const { calls, answersRead } = callsOf(ctx.combo);
  const input = calls * inputTokensOf(ctx) + answersRead * output;
  const allOutput = calls * output;
  let usd = 0;
  for (const c of ctx.candidates) {
    const price = deps.priceOf?.(c.target.provider.id, c.target.model);
    if (price) usd = Math.max(usd, (input * price.input + allOutput * price.output) / 1e6);
  }
  return { tokens: input + allOutput, usd };
}

/**
 * Request stage, after route: a key with token or USD limits holds its request's estimate
 * against them until the answer ends, so concurrent requests cannot jointly overshoot; one that
 * does not fit gets 429 `budget_exceeded` before any upstream call. The hold is released in
 * `after` (whatever happened: answered, failed, client gone), just before the record stage
 * charges the actual usage in the same turn.
 */
export const reserve: RequestStage = {
  name: 'reserve',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    const limits = ctx.key?.limits;
    if (!ctx.key || !limits || !deps.budgets?.reserve || ctx.endpoint.countTokens) return CONTINUE;
    if (!hasSpendLimit(limits)) return CONTINUE;
    const r = deps.budgets.reserve(ctx.key.name, limits, estimate(ctx, deps), ctx.now());
    if (r.decision.kind === 'over') return budgetReply(ctx.key.name, r.decision);
    ctx.reservation = r.reservation;
    return CONTINUE;
  },
  after(ctx: RequestContext): void {
    ctx.reservation?.release();
    ctx.reservation = null;
  },
};
