import { describe, expect, it } from 'vitest';
import { STRATEGY } from '../../src/main/engine/routing/strategies';
import type { ComboStrategy } from '../../src/shared/contract';
import {
  labels,
  live,
  RoutingSignals,
  request,
  seeded,
  simpleCombo,
  viewOf,
} from './strategy-fixtures';

const ALL = Object.keys(STRATEGY) as ComboStrategy[];
/** The strategies whose order depends on nothing random. */
const DETERMINISTIC: ComboStrategy[] = [
  'priority',
  'fill-first',
  'least-used',
  'cost-optimized',
  'reset-aware',
  'reset-window',
  'headroom',
  'lkgp',
  'context-optimized',
  'cache-optimized',
  'auto',
];

describe.each(ALL)('%s at the edges', (name) => {
  const decide = STRATEGY[name]!;
  it('one candidate: that candidate, with a reason', () => {
    const { candidates, catalog } = simpleCombo(1);
    const r = decide(candidates, viewOf(new RoutingSignals(), catalog), request(), seeded(1));
    expect(r).toMatchObject({ order: [candidates[0]] });
    expect('reason' in r && r.reason.length > 0).toBe(true);
  });
  it('every connection saturated: every candidate is still there', () => {
    const { candidates, catalog } = simpleCombo(3, { conns: 2 });
    const l = live();
    for (const c of candidates) {
      l.full.add(c.connection.id);
      l.load.set(c.connection.id, 4);
    }
    const r = decide(candidates, viewOf(new RoutingSignals(), catalog, l), request(), seeded(1));
    if ('refuse' in r) throw new Error(r.refuse.message);
    expect(new Set(r.order)).toEqual(new Set(candidates));
  });
  it('no signal at all (nothing learnt, no prices, no windows, no prefix): no throw, a reason', () => {
    const { candidates, catalog } = simpleCombo(3);
    const req = request({ prefix: () => null, maxOutputTokens: () => null });
    const r = decide(candidates, viewOf(new RoutingSignals(), catalog), req, seeded(1));
    if ('refuse' in r) throw new Error(r.refuse.message);
    expect(r.order).toHaveLength(3);
    expect(r.reason).not.toBe('');
  });
});

describe.each(DETERMINISTIC)('%s on a tie', (name) => {
  it('keeps the configured order, connections included', () => {
    const { candidates, catalog } = simpleCombo(3, { conns: 2 });
    const r = STRATEGY[name]!(
      candidates,
      viewOf(new RoutingSignals(), catalog),
      request(),
      seeded(1),
    );
    if ('refuse' in r) throw new Error(r.refuse.message);
    expect(labels(r.order)).toEqual(labels(candidates));
  });
});
