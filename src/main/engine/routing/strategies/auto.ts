import type { AutoWeights } from '../../../../shared/contract';
import { remainingShare } from '../rate-limit-headers';
import { estimatedCost } from './cost';
import { flatten, type Group, groups, type Strategy, sortBy } from './types';

const DEFAULT_WEIGHTS: Required<AutoWeights> = {
  health: 30,
  latency: 20,
  errorRate: 25,
  cost: 15,
  headroom: 10,
};
/** What an unknown component scores: neither rewarded nor punished. */
const NEUTRAL = 0.5;

type Part = keyof AutoWeights;

/**
 * A score of health (connections not saturated), latency EWMA, error rate, cost and quota
 * headroom, each 0-1 relative to the best target, weighted by `options.weights`.
 */
export const auto: Strategy = (candidates, signals, request) => {
  const w = { ...DEFAULT_WEIGHTS, ...request.options.weights };
  const all = groups(candidates);
  const raw = (g: Group): Record<Part, number | undefined> => {
    const shares = g.items
      .map((c) => signals.quota(c.connection.id))
      .map((q) => (q ? remainingShare(q) : null))
      .filter((s): s is number => s !== null);
    return {
      health: g.items.filter((c) => !signals.saturated(c)).length / g.items.length,
      latency: signals.latencyMs(g.label),
      errorRate: signals.errorRate(g.label),
      cost: estimatedCost(signals.modelSpec(g.items[0]!), request),
      headroom: shares.length > 0 ? Math.max(...shares) : undefined,
    };
  };
  const values = new Map(all.map((g) => [g, raw(g)]));
  const min = (part: Part) =>
    Math.min(...all.map((g) => values.get(g)![part] ?? Number.POSITIVE_INFINITY));
  const bestLatency = min('latency');
  const bestCost = min('cost');
  const missing = new Set<Part>();
  const part = (g: Group, p: Part): number => {
    const v = values.get(g)![p];
    if (v === undefined) {
      missing.add(p);
      return NEUTRAL;
    }
    if (p === 'latency') return v <= 0 ? 1 : bestLatency / v;
    if (p === 'cost') return v <= 0 ? 1 : bestCost / v;
    if (p === 'errorRate') return 1 - v;
    return v;
  };
  const total = Object.values(w).reduce((s, x) => s + x, 0) || 1;
  const score = new Map(
    all.map((g) => [
      g,
      (Object.keys(w) as Part[]).reduce((s, p) => s + w[p] * part(g, p), 0) / total,
    ]),
  );
  const order = sortBy(all, (g) => -score.get(g)!);
  const first = order[0]!;
  const second = order[1];
  return {
    order: flatten(order),
    reason:
      `picked ${first.label}: score ${score.get(first)!.toFixed(2)}` +
      (second ? ` vs ${score.get(second)!.toFixed(2)} at ${second.label}` : '') +
      (missing.size > 0 ? `; not known yet: ${[...missing].join(', ')} (scored neutral)` : ''),
  };
};
