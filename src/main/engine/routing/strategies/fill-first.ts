import { flatten, groups, type Strategy } from './types';

/**
 * The first target until it is saturated (every connection at `maxConcurrent`, queued or
 * cooling), then the next. All saturated: the configured order, and the queue decides.
 */
export const fillFirst: Strategy = (candidates, signals) => {
  const all = groups(candidates);
  const full = (g: (typeof all)[number]) => g.items.every((c) => signals.saturated(c));
  const open = all.filter((g) => !full(g));
  if (open.length === 0) {
    return { order: [...candidates], reason: 'every target saturated: configured order' };
  }
  const first = open[0]!;
  const skipped = all.slice(0, all.indexOf(first));
  return {
    order: flatten([...open, ...all.filter(full)]),
    reason:
      skipped.length > 0
        ? `picked ${first.label}: ${skipped.map((g) => g.label).join(', ')} saturated`
        : `picked ${first.label}: not saturated`,
  };
};
