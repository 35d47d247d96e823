import type { Candidate } from '../../routing/resolve';

/**
 * Candidates in the order to try (RESILIENCE.md §9, §4): the session's pinned connection first
 * (affinity), then priority order with connections at their `maxConcurrent` moved behind the
 * others of the same target (a preference, never a refusal). Pure; always a new array, since
 * `list` may be a route shared by every request of its model and the dispatch adds to its copy.
 */
export function preferenceOrder(
  list: readonly Candidate[],
  pinned: string | null,
  saturated: (c: Candidate) => boolean,
): Candidate[] {
  if (pinned === null && grouped(list) && !list.some(saturated)) return [...list];
  const rank = (c: Candidate) => (pinned !== null && c.connection.id === pinned ? 0 : 1);
  const indexed = list.map((c, i) => ({ c, i, saturated: saturated(c) ? 1 : 0 }));
  const targetOrder = new Map<string, number>();
  list.forEach((c, i) => {
    if (!targetOrder.has(c.target.label)) targetOrder.set(c.target.label, i);
  });
  indexed.sort(
    (a, b) =>
      rank(a.c) - rank(b.c) ||
      targetOrder.get(a.c.target.label)! - targetOrder.get(b.c.target.label)! ||
      a.saturated - b.saturated ||
      a.i - b.i,
  );
  return indexed.map((x) => x.c);
}

/** True when each target's candidates are adjacent, so priority order needs no regrouping. */
function grouped(list: readonly Candidate[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const label = list[i]!.target.label;
    if (label === list[i - 1]!.target.label) continue;
    for (let j = 0; j < i - 1; j++) if (list[j]!.target.label === label) return false;
  }
  return true;
}
