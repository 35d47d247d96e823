import { flatten, groups, type Strategy, sortBy } from './types';

const DEFAULT_WINDOW_MS = 300_000;

/** The target with the fewest requests in the recent window (`windowMs`, default 5 min). */
export const leastUsed: Strategy = (candidates, signals, request) => {
  const windowMs = request.options.windowMs ?? DEFAULT_WINDOW_MS;
  const all = groups(candidates);
  const count = new Map(all.map((g) => [g, signals.recentRequests(g.label, windowMs)]));
  const order = sortBy(all, (g) => count.get(g)!);
  const first = order[0]!;
  const others = order.slice(1).map((g) => count.get(g)!);
  const minutes = windowMs % 60_000 === 0 ? `${windowMs / 60_000} min` : `${windowMs / 1000} s`;
  return {
    order: flatten(order),
    reason: `picked ${first.label}: ${count.get(first)} requests in the last ${minutes}${others.length > 0 ? ` vs ${others.join(', ')}` : ''}`,
  };
};
