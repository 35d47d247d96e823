import { describe, expect, it } from 'vitest';
import { STRATEGY } from '../../src/main/engine/routing/strategies';
import type { ComboStrategy } from '../../src/shared/contract';
import {
  firstTarget,
  live,
  RoutingSignals,
  request,
  seeded,
  simpleCombo,
  viewOf,
} from './strategy-fixtures';

const DRAWS = 20_000;

function shares(name: ComboStrategy, n: number, weights?: number[], seed = 42) {
  const { candidates, catalog } = simpleCombo(n, weights ? { weights } : {});
  const rng = seeded(seed);
  const view = viewOf(new RoutingSignals(), catalog, live());
  const counts = new Map<string, number>();
  for (let i = 0; i < DRAWS; i++) {
    const r = STRATEGY[name]!(candidates, view, request(), rng);
    if ('refuse' in r) throw new Error('refused');
    const first = firstTarget(r.order);
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return (label: string) => (counts.get(label) ?? 0) / DRAWS;
}

// With 20,000 draws the standard error of a share near 0.5 is 0.0035; 0.02 is over 5 of them.
const TOLERANCE = 0.02;

describe('seeded distributions', () => {
  it('weighted: shares follow the weights 3:1', () => {
    const share = shares('weighted', 2, [3, 1]);
    expect(Math.abs(share('a/m') - 0.75)).toBeLessThan(TOLERANCE);
  });
  it('weighted: 5:3:2 over three targets', () => {
    const share = shares('weighted', 3, [5, 3, 2]);
    expect(Math.abs(share('a/m') - 0.5)).toBeLessThan(TOLERANCE);
    expect(Math.abs(share('b/m') - 0.3)).toBeLessThan(TOLERANCE);
    expect(Math.abs(share('c/m') - 0.2)).toBeLessThan(TOLERANCE);
  });
  it('random: uniform over four targets', () => {
    const share = shares('random', 4);
    for (const t of ['a/m', 'b/m', 'c/m', 'd/m'])
      expect(Math.abs(share(t) - 0.25)).toBeLessThan(TOLERANCE);
  });
  it('p2c with equal load: each target first about equally often', () => {
    const share = shares('p2c', 3);
    for (const t of ['a/m', 'b/m', 'c/m'])
      expect(Math.abs(share(t) - 1 / 3)).toBeLessThan(TOLERANCE);
  });
  it('p2c: the most loaded of three is never first; the least loaded wins its pairs', () => {
    const { candidates, catalog } = simpleCombo(3);
    const l = live();
    l.load.set('a1', 9);
    l.load.set('b1', 1);
    l.load.set('c1', 5);
    const rng = seeded(7);
    const counts = new Map<string, number>();
    for (let i = 0; i < DRAWS; i++) {
      const r = STRATEGY.p2c!(candidates, viewOf(new RoutingSignals(), catalog, l), request(), rng);
      if ('refuse' in r) throw new Error('refused');
      counts.set(firstTarget(r.order), (counts.get(firstTarget(r.order)) ?? 0) + 1);
    }
    expect(counts.get('a/m') ?? 0).toBe(0);
    // b wins both pairs it is drawn in (2 of 3 pairs), c the one against a.
    expect(Math.abs((counts.get('b/m') ?? 0) / DRAWS - 2 / 3)).toBeLessThan(TOLERANCE);
  });
  it('strict-random: over many cycles every target leads each position about equally', () => {
    const { candidates, catalog } = simpleCombo(3);
    const s = new RoutingSignals();
    const rng = seeded(5);
    const firstOfCycle = new Map<string, number>();
    for (let i = 0; i < 3 * 3000; i++) {
      const r = STRATEGY['strict-random']!(candidates, viewOf(s, catalog), request(), rng);
      if ('refuse' in r) throw new Error('refused');
      if (i % 3 === 0)
        firstOfCycle.set(firstTarget(r.order), (firstOfCycle.get(firstTarget(r.order)) ?? 0) + 1);
      s.routed('c', firstTarget(r.order), 3, 0);
    }
    for (const t of ['a/m', 'b/m', 'c/m']) {
      expect(Math.abs((firstOfCycle.get(t) ?? 0) / 3000 - 1 / 3)).toBeLessThan(0.03);
    }
  });
});
