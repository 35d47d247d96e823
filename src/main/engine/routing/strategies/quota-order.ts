import type { Candidate } from '../resolve';
import { configured, type Group, groups, type Ordered, sortBy } from './types';

/**
 * Orders connections by a quota score (lower first), targets by their best connection; those
 * whose quota is unknown go last in the configured order. Shared by reset-aware, reset-window
 * and headroom, which differ only in the score.
 */
export function byQuota(
  candidates: readonly Candidate[],
  score: (c: Candidate) => number | undefined,
  describe: (c: Candidate, score: number) => string,
): Ordered {
  const scores = new Map(candidates.map((c) => [c, score(c)]));
  if ([...scores.values()].every((s) => s === undefined)) {
    return configured(candidates, 'no quota announced by any connection yet');
  }
  const key = (c: Candidate) => scores.get(c) ?? Number.POSITIVE_INFINITY;
  const all: Group[] = groups(candidates).map((g) => ({ ...g, items: sortBy(g.items, key) }));
  const order = sortBy(all, (g) => key(g.items[0]!)).flatMap((g) => g.items);
  const first = order[0]!;
  const unknown = candidates.filter((c) => scores.get(c) === undefined).length;
  return {
    order,
    reason: `picked ${first.target.label}@${first.connection.id}: ${describe(first, scores.get(first)!)}${unknown > 0 ? ` (${unknown} without quota data)` : ''}`,
  };
}
