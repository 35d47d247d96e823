import { estimatedCost, usd } from './cost';
import { configured, flatten, groups, type Strategy, sortBy } from './types';

/**
 * Cheapest first for this request: estimated input plus `max_tokens` of output at each target's
 * `price`. Targets without a price go after the priced ones, in the configured order.
 */
export const costOptimized: Strategy = (candidates, signals, request) => {
  const all = groups(candidates);
  const cost = new Map(all.map((g) => [g, estimatedCost(signals.modelSpec(g.items[0]!), request)]));
  const unpriced = all.filter((g) => cost.get(g) === undefined);
  if (unpriced.length === all.length) return configured(candidates, 'no target has a price');
  const order = sortBy(all, (g) => cost.get(g) ?? Number.POSITIVE_INFINITY);
  const first = order[0]!;
  const next = order.find((g) => g !== first && cost.get(g) !== undefined);
  const assumed = request.maxOutputTokens() === null ? ', max_tokens unset' : '';
  return {
    order: flatten(order),
    reason:
      `picked ${first.label}: ~${usd(cost.get(first)!)}` +
      (next ? ` vs ${usd(cost.get(next)!)} at ${next.label}` : '') +
      ` (~${request.inputTokens()} tokens in${assumed})` +
      (unpriced.length > 0 ? `; no price for ${unpriced.map((g) => g.label).join(', ')}` : ''),
  };
};
