import { flatten, groups, type Strategy, sortBy } from './types';

/**
 * Only targets whose `contextWindow` fits the estimate (prompt plus `max_tokens`), the smallest
 * that fits first; targets whose window is unknown after them. None fits: refused, no call.
 */
export const contextOptimized: Strategy = (candidates, signals, request) => {
  const need = request.inputTokens() + (request.maxOutputTokens() ?? 0);
  const all = groups(candidates);
  const windowOf = new Map(all.map((g) => [g, signals.modelSpec(g.items[0]!).contextWindow]));
  const fits = all.filter((g) => (windowOf.get(g) ?? 0) >= need);
  const unknown = all.filter((g) => windowOf.get(g) === undefined);
  if (fits.length === 0 && unknown.length === 0) {
    const largest = Math.max(...all.map((g) => windowOf.get(g)!));
    return {
      refuse: {
        code: 'context_length_exceeded',
        message: `the request needs about ${need} tokens (prompt estimate plus max_tokens); the largest context window among this combo's eligible targets is ${largest}`,
      },
    };
  }
  const order = [...sortBy(fits, (g) => windowOf.get(g)!), ...unknown];
  const first = order[0]!;
  const left = all.length - order.length;
  return {
    order: flatten(order),
    reason:
      (fits.length > 0
        ? `picked ${first.label}: window ${windowOf.get(first)} fits ~${need} tokens`
        : `no known window fits ~${need} tokens: trying targets of unknown window`) +
      (left > 0 ? `; ${left} too small` : ''),
  };
};
