import { flatten, groups, type Strategy, shuffle } from './types';

/** Uniformly at random, every request on its own. */
export const random: Strategy = (candidates, _signals, _request, rng) => {
  const order = shuffle(groups(candidates), rng);
  return { order: flatten(order), reason: `picked ${order[0]!.label}: uniform draw` };
};
