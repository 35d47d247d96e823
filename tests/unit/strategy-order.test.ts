import { describe, expect, it } from 'vitest';
import type { Ordered, StrategyResult } from '../../src/main/engine/routing/strategies';
import { STRATEGY } from '../../src/main/engine/routing/strategies';
import {
  catalogOf,
  comboCandidates,
  firstTarget,
  labels,
  live,
  RoutingSignals,
  request,
  seeded,
  simpleCombo,
  viewOf,
} from './strategy-fixtures';

function ordered(r: StrategyResult): Ordered {
  if ('refuse' in r) throw new Error(`refused: ${r.refuse.message}`);
  return r;
}

const NOW = 1_000_000;

describe('priority', () => {
  it('keeps the configured order', () => {
    const { candidates, catalog } = simpleCombo(3);
    const r = ordered(
      STRATEGY.priority!(candidates, viewOf(new RoutingSignals(), catalog), request(), seeded(1)),
    );
    expect(labels(r.order)).toEqual(['a/m@a1', 'b/m@b1', 'c/m@c1']);
    expect(r.reason).toBe('configured order');
  });
});

describe('weighted', () => {
  it('one target: no draw', () => {
    const { candidates, catalog } = simpleCombo(1, { weights: [3] });
    const r = ordered(
      STRATEGY.weighted!(candidates, viewOf(new RoutingSignals(), catalog), request(), seeded(1)),
    );
    expect(r.reason).toBe('one target');
  });
  it('weight 0 targets come last; the reason names the weight', () => {
    const { candidates, catalog } = simpleCombo(3, { weights: [0, 3, 1] });
    for (let seed = 0; seed < 50; seed++) {
      const r = ordered(
        STRATEGY.weighted!(
          candidates,
          viewOf(new RoutingSignals(), catalog),
          request(),
          seeded(seed),
        ),
      );
      expect(firstTarget(r.order)).not.toBe('a/m');
      expect(r.order.at(-1)!.target.label).toBe('a/m');
      expect(r.reason).toMatch(/^picked (b\/m: weight 3|c\/m: weight 1) of 4$/);
    }
  });
  it('a draw below the first weight picks the first target, above it the second', () => {
    const { candidates, catalog } = simpleCombo(2, { weights: [3, 1] });
    const v = viewOf(new RoutingSignals(), catalog);
    expect(
      firstTarget(ordered(STRATEGY.weighted!(candidates, v, request(), () => 0.74)).order),
    ).toBe('a/m');
    expect(
      firstTarget(ordered(STRATEGY.weighted!(candidates, v, request(), () => 0.76)).order),
    ).toBe('b/m');
  });
});

describe('round-robin', () => {
  it('rotates per combo, stickyLimit requests a turn', () => {
    const { candidates, catalog } = simpleCombo(3);
    const s = new RoutingSignals();
    const picks: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = ordered(
        STRATEGY['round-robin']!(
          candidates,
          viewOf(s, catalog),
          request({ options: { stickyLimit: 2 } }),
          seeded(i),
        ),
      );
      picks.push(firstTarget(r.order));
      s.routed('c', firstTarget(r.order), 3, NOW);
    }
    expect(picks).toEqual(['a/m', 'a/m', 'b/m', 'b/m', 'c/m', 'c/m', 'a/m']);
  });
});

describe('fill-first', () => {
  it('the first target until every connection of it is saturated', () => {
    const { candidates, catalog } = simpleCombo(2, { conns: 2 });
    const l = live();
    const s = new RoutingSignals();
    expect(
      firstTarget(
        ordered(STRATEGY['fill-first']!(candidates, viewOf(s, catalog, l), request(), seeded(1)))
          .order,
      ),
    ).toBe('a/m');
    l.full.add('a1');
    expect(
      firstTarget(
        ordered(STRATEGY['fill-first']!(candidates, viewOf(s, catalog, l), request(), seeded(1)))
          .order,
      ),
    ).toBe('a/m');
    l.full.add('a2');
    const r = ordered(
      STRATEGY['fill-first']!(candidates, viewOf(s, catalog, l), request(), seeded(1)),
    );
    expect(labels(r.order)).toEqual(['b/m@b1', 'b/m@b2', 'a/m@a1', 'a/m@a2']);
    expect(r.reason).toBe('picked b/m: a/m saturated');
  });
  it('all saturated: configured order, said so', () => {
    const { candidates, catalog } = simpleCombo(2);
    const l = live();
    l.full.add('a1');
    l.full.add('b1');
    const r = ordered(
      STRATEGY['fill-first']!(
        candidates,
        viewOf(new RoutingSignals(), catalog, l),
        request(),
        seeded(1),
      ),
    );
    expect(labels(r.order)).toEqual(['a/m@a1', 'b/m@b1']);
    expect(r.reason).toBe('every target saturated: configured order');
  });
});

describe('p2c', () => {
  it('the less loaded of the two drawn; the reason gives both loads', () => {
    const { candidates, catalog } = simpleCombo(2);
    const l = live();
    l.load.set('a1', 7);
    l.load.set('b1', 2);
    const r = ordered(
      STRATEGY.p2c!(candidates, viewOf(new RoutingSignals(), catalog, l), request(), seeded(3)),
    );
    expect(firstTarget(r.order)).toBe('b/m');
    expect(r.reason).toBe('picked b/m over a/m: 2 in flight vs 7');
  });
  it('a tie in flight goes to the lower latency; no latency known: the first drawn, said so', () => {
    const { candidates, catalog } = simpleCombo(2);
    const s = new RoutingSignals();
    const tie = ordered(STRATEGY.p2c!(candidates, viewOf(s, catalog), request(), seeded(3)));
    expect(tie.reason).toMatch(/0 in flight each, no latency known yet: first drawn$/);
    s.learnCall(candidates[0]!, { ok: true, latencyMs: 900, headers: null }, NOW);
    s.learnCall(candidates[1]!, { ok: true, latencyMs: 100, headers: null }, NOW);
    const r = ordered(STRATEGY.p2c!(candidates, viewOf(s, catalog), request(), seeded(3)));
    expect(firstTarget(r.order)).toBe('b/m');
    expect(r.reason).toBe('picked b/m over a/m: 0 in flight each, latency 100 ms vs 900 ms');
  });
});

describe('strict-random', () => {
  it('deals each target once per cycle', () => {
    const { candidates, catalog } = simpleCombo(4);
    const s = new RoutingSignals();
    const rng = seeded(9);
    for (let cycle = 0; cycle < 5; cycle++) {
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = ordered(
          STRATEGY['strict-random']!(candidates, viewOf(s, catalog), request(), rng),
        );
        seen.push(firstTarget(r.order));
        s.routed('c', firstTarget(r.order), 4, NOW);
      }
      expect(seen.sort()).toEqual(['a/m', 'b/m', 'c/m', 'd/m']);
    }
  });
});

describe('least-used', () => {
  it('fewest requests in the window first; older ones do not count', () => {
    const { candidates, catalog } = simpleCombo(2);
    const s = new RoutingSignals();
    for (let i = 0; i < 5; i++) s.routed('c', 'a/m', 2, NOW - 400_000);
    for (let i = 0; i < 2; i++) s.routed('c', 'b/m', 2, NOW - 1000);
    s.routed('c', 'a/m', 2, NOW - 1000);
    const r = ordered(
      STRATEGY['least-used']!(candidates, viewOf(s, catalog), request(), seeded(1)),
    );
    expect(firstTarget(r.order)).toBe('a/m');
    expect(r.reason).toBe('picked a/m: 1 requests in the last 5 min vs 2');
    const wide = ordered(
      STRATEGY['least-used']!(
        candidates,
        viewOf(s, catalog),
        request({ options: { windowMs: 600_000 } }),
        seeded(1),
      ),
    );
    expect(firstTarget(wide.order)).toBe('b/m');
  });
});

describe('cost-optimized', () => {
  const catalog = catalogOf(
    [
      { id: 'a', models: [{ id: 'm', price: { input: 3, output: 15 } }] },
      { id: 'b', models: [{ id: 'm', price: { input: 0.25, output: 2 } }] },
      { id: 'x', models: ['m'] },
    ],
    [{ name: 'c', strategy: 'cost-optimized', targets: ['x/m', 'a/m', 'b/m'] }],
  );
  it('cheapest for the estimate first; unpriced after the priced', () => {
    const { candidates } = comboCandidates(catalog, 'c');
    const r = ordered(
      STRATEGY['cost-optimized']!(
        candidates,
        viewOf(new RoutingSignals(), catalog),
        request(),
        seeded(1),
      ),
    );
    expect(r.order.map((c) => c.target.label)).toEqual(['b/m', 'a/m', 'x/m']);
    expect(r.reason).toBe(
      'picked b/m: ~$0.00125 vs $0.011 at a/m (~1000 tokens in); no price for x/m',
    );
  });
  it('no price anywhere: configured order, said so', () => {
    const { candidates, catalog: plain } = simpleCombo(2);
    const r = ordered(
      STRATEGY['cost-optimized']!(
        candidates,
        viewOf(new RoutingSignals(), plain),
        request(),
        seeded(1),
      ),
    );
    expect(r.reason).toBe('no target has a price: configured order');
    expect(labels(r.order)).toEqual(['a/m@a1', 'b/m@b1']);
  });
});

describe('quota strategies (reset-aware, reset-window, headroom)', () => {
  const setup = () => {
    const { candidates, catalog } = simpleCombo(1, { conns: 3 });
    const s = new RoutingSignals();
    const learn = (i: number, headers: Record<string, string>) =>
      s.learnCall(candidates[i]!, { ok: true, latencyMs: 10, headers }, NOW);
    return { candidates, catalog, s, learn };
  };
  it('missing quota everywhere: configured order, said so', () => {
    const { candidates, catalog, s } = setup();
    for (const name of ['reset-aware', 'reset-window', 'headroom'] as const) {
      const r = ordered(STRATEGY[name]!(candidates, viewOf(s, catalog), request(), seeded(1)));
      expect(labels(r.order)).toEqual(['a/m@a1', 'a/m@a2', 'a/m@a3']);
      expect(r.reason).toBe('no quota announced by any connection yet: configured order');
    }
  });
  it('reset-aware: soonest reset first; headroom: most left; unknown last', () => {
    const { candidates, catalog, s, learn } = setup();
    learn(0, {
      'x-ratelimit-remaining-requests': '90',
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-reset-requests': '50s',
    });
    learn(1, {
      'x-ratelimit-remaining-requests': '10',
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-reset-requests': '5s',
    });
    const v = viewOf(s, catalog);
    const aware = ordered(STRATEGY['reset-aware']!(candidates, v, request(), seeded(1)));
    expect(labels(aware.order)).toEqual(['a/m@a2', 'a/m@a1', 'a/m@a3']);
    expect(aware.reason).toBe('picked a/m@a2: quota resets in 5 s (1 without quota data)');
    const head = ordered(STRATEGY.headroom!(candidates, v, request(), seeded(1)));
    expect(labels(head.order)).toEqual(['a/m@a1', 'a/m@a2', 'a/m@a3']);
    expect(head.reason).toBe('picked a/m@a1: 90 percent of its quota left (1 without quota data)');
  });
  it('reset-window: remaining share per second to the reset', () => {
    const { candidates, catalog, learn, s } = setup();
    // 90% over 100 s = 0.9%/s; 20% over 5 s = 4%/s.
    learn(0, {
      'anthropic-ratelimit-requests-remaining': '90',
      'anthropic-ratelimit-requests-limit': '100',
      'anthropic-ratelimit-requests-reset': new Date(NOW + 100_000).toISOString(),
    });
    learn(1, {
      'anthropic-ratelimit-requests-remaining': '20',
      'anthropic-ratelimit-requests-limit': '100',
      'anthropic-ratelimit-requests-reset': new Date(NOW + 5_000).toISOString(),
    });
    const r = ordered(
      STRATEGY['reset-window']!(candidates, viewOf(s, catalog), request(), seeded(1)),
    );
    expect(labels(r.order).slice(0, 2)).toEqual(['a/m@a2', 'a/m@a1']);
    expect(r.reason).toMatch(/^picked a\/m@a2: 20 percent left, reset in 5 s/);
  });
});

describe('lkgp and cache-optimized', () => {
  it('lkgp: the last target that served, until it fails', () => {
    const { candidates, catalog } = simpleCombo(3);
    const s = new RoutingSignals();
    const run = () => ordered(STRATEGY.lkgp!(candidates, viewOf(s, catalog), request(), seeded(1)));
    expect(run().reason).toBe('no success yet: configured order');
    s.settled('c', 'b/m', true, null, NOW);
    expect(firstTarget(run().order)).toBe('b/m');
    expect(run().reason).toBe('picked b/m: last known good');
    s.settled('c', 'b/m', false, null, NOW);
    expect(firstTarget(run().order)).toBe('a/m');
  });
  it('lkgp: the last good target is not eligible now: configured order, said so', () => {
    const { candidates, catalog } = simpleCombo(3);
    const s = new RoutingSignals();
    s.settled('c', 'b/m', true, null, NOW);
    const r = ordered(
      STRATEGY.lkgp!(
        candidates.filter((c) => c.target.label !== 'b/m'),
        viewOf(s, catalog),
        request(),
        seeded(1),
      ),
    );
    expect(r.reason).toBe('last good b/m is not eligible now: configured order');
  });
  it('cache-optimized: the target that served the same prefix', () => {
    const { candidates, catalog } = simpleCombo(3);
    const s = new RoutingSignals();
    s.settled('c', 'c/m', true, 'abcdef0123', NOW);
    const hit = ordered(
      STRATEGY['cache-optimized']!(
        candidates,
        viewOf(s, catalog),
        request({ prefix: () => 'abcdef0123' }),
        seeded(1),
      ),
    );
    expect(firstTarget(hit.order)).toBe('c/m');
    expect(hit.reason).toBe('picked c/m: prefix abcdef01 cached there');
    const miss = ordered(
      STRATEGY['cache-optimized']!(
        candidates,
        viewOf(s, catalog),
        request({ prefix: () => 'ffff0000' }),
        seeded(1),
      ),
    );
    expect(miss.reason).toBe('prefix ffff0000 not seen yet: configured order');
    const none = ordered(
      STRATEGY['cache-optimized']!(
        candidates,
        viewOf(s, catalog),
        request({ prefix: () => null }),
        seeded(1),
      ),
    );
    expect(none.reason).toBe('no prompt prefix: configured order');
  });
});

describe('context-optimized', () => {
  const catalog = catalogOf(
    [
      { id: 'big', models: [{ id: 'm', contextWindow: 200_000 }] },
      { id: 'small', models: [{ id: 'm', contextWindow: 8_000 }] },
      { id: 'mid', models: [{ id: 'm', contextWindow: 32_000 }] },
    ],
    [{ name: 'c', strategy: 'context-optimized', targets: ['big/m', 'small/m', 'mid/m'] }],
  );
  const { candidates } = comboCandidates(catalog, 'c');
  it('the smallest window that fits first; too small ones are left out', () => {
    const r = ordered(
      STRATEGY['context-optimized']!(
        candidates,
        viewOf(new RoutingSignals(), catalog),
        request({ inputTokens: () => 10_000 }),
        seeded(1),
      ),
    );
    expect(r.order.map((c) => c.target.label)).toEqual(['mid/m', 'big/m']);
    expect(r.reason).toBe('picked mid/m: window 32000 fits ~10500 tokens; 1 too small');
  });
  it('none fits: refused with the estimate and the largest window', () => {
    const r = STRATEGY['context-optimized']!(
      candidates,
      viewOf(new RoutingSignals(), catalog),
      request({ inputTokens: () => 300_000 }),
      seeded(1),
    );
    expect(r).toEqual({
      refuse: {
        code: 'context_length_exceeded',
        message:
          "the request needs about 300500 tokens (prompt estimate plus max_tokens); the largest context window among this combo's eligible targets is 200000",
      },
    });
  });
  it('a window from the defaults table counts; an unknown window goes after the known ones', () => {
    const cat = catalogOf(
      [
        { id: 'k', models: ['known-model'] },
        { id: 'u', models: ['m'] },
      ],
      [{ name: 'c', strategy: 'context-optimized', targets: ['u/m', 'k/known-model'] }],
    );
    const { candidates: cs } = comboCandidates(cat, 'c');
    const r = ordered(
      STRATEGY['context-optimized']!(
        cs,
        viewOf(new RoutingSignals(), cat),
        request({ inputTokens: () => 100 }),
        seeded(1),
      ),
    );
    expect(r.order.map((c) => c.target.label)).toEqual(['k/known-model', 'u/m']);
  });
});

describe('auto', () => {
  it('scores error rate, latency and health; unknown parts are named', () => {
    const { candidates, catalog } = simpleCombo(2);
    const s = new RoutingSignals();
    const r0 = ordered(STRATEGY.auto!(candidates, viewOf(s, catalog), request(), seeded(1)));
    expect(r0.reason).toMatch(
      /not known yet: latency, errorRate, cost, headroom \(scored neutral\)$/,
    );
    for (let i = 0; i < 5; i++) {
      s.learnCall(candidates[0]!, { ok: false, latencyMs: 50, headers: null }, NOW);
      s.learnCall(candidates[1]!, { ok: true, latencyMs: 300, headers: null }, NOW);
    }
    s.learnCall(candidates[0]!, { ok: true, latencyMs: 50, headers: null }, NOW);
    const r = ordered(STRATEGY.auto!(candidates, viewOf(s, catalog), request(), seeded(1)));
    expect(firstTarget(r.order)).toBe('b/m');
    const latencyOnly = ordered(
      STRATEGY.auto!(
        candidates,
        viewOf(s, catalog),
        request({
          options: { weights: { health: 0, errorRate: 0, latency: 100, cost: 0, headroom: 0 } },
        }),
        seeded(1),
      ),
    );
    expect(firstTarget(latencyOnly.order)).toBe('a/m');
  });
});

describe('quota-share', () => {
  it('power of two choices across connections; one at its limit goes behind, never out', () => {
    const { candidates, catalog } = simpleCombo(1, { conns: 2 });
    const l = live();
    l.full.add('a1');
    for (let seed = 0; seed < 20; seed++) {
      const r = ordered(
        STRATEGY['quota-share']!(
          candidates,
          viewOf(new RoutingSignals(), catalog, l),
          request(),
          seeded(seed),
        ),
      );
      expect(labels(r.order)).toEqual(['a/m@a2', 'a/m@a1']);
      expect(r.reason).toBe('picked a/m@a2 over a/m@a1: 0 in flight vs at its limit');
    }
  });
  it('one connection: nothing to choose', () => {
    const { candidates, catalog } = simpleCombo(1);
    const r = ordered(
      STRATEGY['quota-share']!(
        candidates,
        viewOf(new RoutingSignals(), catalog),
        request(),
        seeded(1),
      ),
    );
    expect(r.reason).toBe('one connection');
  });
});
