import { ahead, configured, flatten, groups, type Strategy } from './types';

/** Last known good provider: the target that last served this combo, until it fails. */
export const lkgp: Strategy = (candidates, signals, request) => {
  const last = signals.lastGood(request.combo);
  if (last === undefined) return configured(candidates, 'no success yet');
  const all = groups(candidates);
  const good = all.find((g) => g.label === last);
  if (!good) return configured(candidates, `last good ${last} is not eligible now`);
  return { order: flatten(ahead(all, good)), reason: `picked ${last}: last known good` };
};
