import type { SignalsView } from '../signals';
import { ahead, drawTwo, flatten, type Group, groups, type Strategy } from './types';

function inFlight(g: Group, signals: SignalsView): number {
  return g.items.reduce((n, c) => n + signals.inFlight(c.connection.id), 0);
}

/**
 * Power of two choices: two targets at random, the less loaded first (requests in flight, then
 * latency EWMA); the others after them in the configured order.
 */
export const p2c: Strategy = (candidates, signals, _request, rng) => {
  const all = groups(candidates);
  if (all.length === 1) return { order: [...candidates], reason: 'one target' };
  const [a, b] = drawTwo(all, rng);
  const la = inFlight(a, signals);
  const lb = inFlight(b, signals);
  let win = a;
  let why: string;
  if (la !== lb) {
    win = la < lb ? a : b;
    why = `${Math.min(la, lb)} in flight vs ${Math.max(la, lb)}`;
  } else {
    const ta = signals.latencyMs(a.label);
    const tb = signals.latencyMs(b.label);
    if (ta !== undefined && tb !== undefined && ta !== tb) {
      win = ta < tb ? a : b;
      why = `${la} in flight each, latency ${Math.round(Math.min(ta, tb))} ms vs ${Math.round(Math.max(ta, tb))} ms`;
    } else {
      why = `${la} in flight each${ta === undefined || tb === undefined ? ', no latency known yet' : ''}: first drawn`;
    }
  }
  const lose = win === a ? b : a;
  const order = ahead(ahead(all, lose), win);
  return { order: flatten(order), reason: `picked ${win.label} over ${lose.label}: ${why}` };
};
