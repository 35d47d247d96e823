import { draw, flatten, groups, type Strategy, shuffle } from './types';

/** A shuffled deck: each target is dealt once per cycle, in random order. */
export const strictRandom: Strategy = (candidates, signals, request, rng) => {
  const all = groups(candidates);
  const dealt = signals.dealt(request.combo);
  const fresh = all.filter((g) => !dealt.has(g.label));
  const deck = fresh.length > 0 ? fresh : all;
  const first = deck[draw(rng, deck.length)]!;
  const rest = shuffle(
    all.filter((g) => g !== first),
    rng,
  );
  return {
    order: flatten([first, ...rest]),
    reason: `dealt ${first.label}: ${deck.length} of ${all.length} left in this cycle${fresh.length === 0 ? ' (new cycle)' : ''}`,
  };
};
