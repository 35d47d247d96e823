import type { Candidate } from '../resolve';
import type { SignalsView } from '../signals';
import { drawTwo, type Strategy, sortBy } from './types';

/** In flight per permit: a connection without `maxConcurrent` counts its requests in flight. */
function load(c: Candidate, signals: SignalsView): number {
  const n = signals.inFlight(c.connection.id);
  return c.connection.maxConcurrent ? n / c.connection.maxConcurrent : n;
}

/**
 * Power of two choices across the combo's connections: two at random, the less loaded first; a
 * connection at its limit goes behind the others but is never left out.
 */
export const quotaShare: Strategy = (candidates, signals, _request, rng) => {
  if (candidates.length === 1) return { order: [...candidates], reason: 'one connection' };
  const [a, b] = drawTwo(candidates, rng);
  const rank = (c: Candidate) => (signals.saturated(c) ? 1e9 : 0) + load(c, signals);
  const win = rank(b) < rank(a) ? b : a;
  const lose = win === a ? b : a;
  const rest = sortBy(
    candidates.filter((c) => c !== a && c !== b),
    rank,
  );
  const name = (c: Candidate) => `${c.target.label}@${c.connection.id}`;
  const busy = (c: Candidate) =>
    signals.saturated(c) ? 'at its limit' : `${signals.inFlight(c.connection.id)} in flight`;
  return {
    order: [win, lose, ...rest],
    reason: `picked ${name(win)} over ${name(lose)}: ${busy(win)} vs ${busy(lose)}`,
  };
};
