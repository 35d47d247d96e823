import { draw, flatten, type Group, groups, type Strategy } from './types';

/**
 * A weighted draw without replacement: the first target with probability weight/total, the next
 * among the rest the same way. Weight 0 targets come last, as a reserve.
 */
export const weighted: Strategy = (candidates, _signals, _request, rng) => {
  const all = groups(candidates);
  if (all.length === 1) return { order: [...candidates], reason: 'one target' };
  const left = all.filter((g) => g.weight > 0);
  const reserve = all.filter((g) => g.weight <= 0);
  const total = left.reduce((s, g) => s + g.weight, 0);
  const order: Group[] = [];
  while (left.length > 0) {
    const sum = left.reduce((s, g) => s + g.weight, 0);
    let x = rng() * sum;
    let i = 0;
    while (i < left.length - 1 && x >= left[i]!.weight) x -= left[i++]!.weight;
    order.push(...left.splice(i, 1));
  }
  if (order.length === 0) {
    const first = draw(rng, reserve.length);
    return {
      order: flatten([reserve[first]!, ...reserve.filter((_, j) => j !== first)]),
      reason: 'every weight is 0: uniform draw',
    };
  }
  const first = order[0]!;
  return {
    order: flatten([...order, ...reserve]),
    reason: `picked ${first.label}: weight ${first.weight} of ${total}`,
  };
};
