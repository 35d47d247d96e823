import { flatten, groups, type Strategy } from './types';

/** Rotation per combo: each target in turn, `stickyLimit` requests a turn (default 1). */
export const roundRobin: Strategy = (candidates, signals, request) => {
  const all = groups(candidates);
  const sticky = request.options.stickyLimit ?? 1;
  const turn = Math.floor(signals.turns(request.combo) / sticky) % all.length;
  const order = [...all.slice(turn), ...all.slice(0, turn)];
  return {
    order: flatten(order),
    reason: `picked ${order[0]!.label}: turn ${turn + 1} of ${all.length}${sticky > 1 ? ` (${sticky} requests a turn)` : ''}`,
  };
};
