import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CircuitBreaker,
  degradationThreshold,
  HISTORY_LIMIT,
  MAX_RESET_MULTIPLIER,
} from '../../src/main/engine/resilience/health/breaker';
import {
  type BreakerProfile,
  DEFAULT_BREAKER_PROFILES,
} from '../../src/main/engine/settings/resilience-defaults';
import type { BreakerTransition } from '../../src/shared/contract';

const T0 = 1_700_000_000_000;

function make(profile: BreakerProfile = DEFAULT_BREAKER_PROFILES.api_key) {
  const events: BreakerTransition[] = [];
  const b = new CircuitBreaker('openai', profile, (t) => events.push(t));
  return { b, events };
}

function fail(b: CircuitBreaker, n: number, now: number, cause = 'HTTP 503'): void {
  for (let i = 0; i < n; i++) b.recordFailure(now, false, cause);
}

/** Drives a breaker to OPEN at `now` with the profile's threshold. */
function opened(profile: BreakerProfile, now: number) {
  const made = make(profile);
  fail(made.b, profile.failureThreshold, now);
  expect(made.b.status(now)).toBe('OPEN');
  return made;
}

describe('§1 thresholds per provider auth class (degraded after / opens after / reset timeout)', () => {
  it('the defaults are oauth 5/8/60 s, api_key 7/12/30 s, local derived/2/15 s', () => {
    expect(DEFAULT_BREAKER_PROFILES.oauth).toEqual({
      degradationThreshold: 5,
      failureThreshold: 8,
      resetTimeoutMs: 60_000,
    });
    expect(DEFAULT_BREAKER_PROFILES.api_key).toEqual({
      degradationThreshold: 7,
      failureThreshold: 12,
      resetTimeoutMs: 30_000,
    });
    expect(DEFAULT_BREAKER_PROFILES.local.failureThreshold).toBe(2);
    expect(DEFAULT_BREAKER_PROFILES.local.resetTimeoutMs).toBe(15_000);
    expect(MAX_RESET_MULTIPLIER).toBe(16);
    expect(HISTORY_LIMIT).toBe(20);
  });

  it('local derives its degraded threshold: max(1, floor(0.6 × 2)) = 1', () => {
    expect(degradationThreshold(DEFAULT_BREAKER_PROFILES.local)).toBe(1);
    expect(
      degradationThreshold({ degradationThreshold: 0, failureThreshold: 10, resetTimeoutMs: 1 }),
    ).toBe(6);
    expect(
      degradationThreshold({ degradationThreshold: 0, failureThreshold: 1, resetTimeoutMs: 1 }),
    ).toBe(1);
    expect(degradationThreshold(DEFAULT_BREAKER_PROFILES.oauth)).toBe(5);
  });

  for (const [cls, degradedAt, openAt] of [
    ['api_key', 7, 12],
    ['oauth', 5, 8],
    ['local', 1, 2],
  ] as const) {
    it(`${cls}: CLOSED below ${degradedAt}, DEGRADED at ${degradedAt}, OPEN at ${openAt} failures`, () => {
      const { b } = make(DEFAULT_BREAKER_PROFILES[cls]);
      fail(b, degradedAt - 1, T0);
      expect(b.status(T0)).toBe('CLOSED');
      expect(b.failureCount(T0)).toBe(degradedAt - 1);
      fail(b, 1, T0);
      expect(b.status(T0)).toBe('DEGRADED');
      fail(b, openAt - degradedAt - 1, T0);
      expect(b.status(T0)).toBe('DEGRADED');
      fail(b, 1, T0);
      expect(b.status(T0)).toBe('OPEN');
      expect(b.failureCount(T0)).toBe(openAt);
    });
  }

  for (const [cls, resetMs] of [
    ['oauth', 60_000],
    ['api_key', 30_000],
    ['local', 15_000],
  ] as const) {
    it(`${cls}: OPEN lasts ${resetMs / 1000} s, then HALF_OPEN`, () => {
      const { b } = opened(DEFAULT_BREAKER_PROFILES[cls], T0);
      expect(b.retryAfterMs(T0)).toBe(resetMs);
      expect(b.status(T0 + resetMs - 1)).toBe('OPEN');
      expect(b.retryAfterMs(T0 + resetMs - 1)).toBe(1);
      expect(b.status(T0 + resetMs)).toBe('HALF_OPEN');
      expect(b.retryAfterMs(T0 + resetMs)).toBe(0);
    });
  }

  it('an OPEN breaker refuses admission with the time left until its reset', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    expect(b.admit(T0 + 10_000, T0 + 20_000)).toEqual({ allowed: false, retryAfterMs: 20_000 });
    expect(b.wouldAdmit(T0 + 10_000)).toBe(false);
  });

  it('CLOSED and DEGRADED admit every request, none of them a probe', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.oauth);
    expect(b.admit(T0, T0 + 1000)).toEqual({ allowed: true, probe: false });
    fail(b, 5, T0);
    expect(b.status(T0)).toBe('DEGRADED');
    expect(b.admit(T0, T0 + 1000)).toEqual({ allowed: true, probe: false });
    expect(b.admit(T0, T0 + 1000)).toEqual({ allowed: true, probe: false });
    expect(b.retryAfterMs(T0)).toBe(0);
    expect(b.wouldAdmit(T0)).toBe(true);
  });

  it('failures of stragglers while OPEN change nothing', () => {
    const { b, events } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const before = events.length;
    fail(b, 5, T0 + 1000);
    b.recordSuccess(T0 + 1000, false);
    expect(b.status(T0 + 1000)).toBe('OPEN');
    expect(b.failureCount(T0 + 1000)).toBe(12);
    expect(b.retryAfterMs(T0 + 1000)).toBe(29_000);
    expect(events.length).toBe(before);
  });

  it('a profile change applies to the next failure (dashboard edit)', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 3, T0);
    b.setProfile({ degradationThreshold: 2, failureThreshold: 4, resetTimeoutMs: 1000 });
    fail(b, 1, T0);
    expect(b.status(T0)).toBe('OPEN');
    expect(b.retryAfterMs(T0)).toBe(1000);
  });
});

describe('§1 a success in CLOSED or DEGRADED lowers the failure count by one', () => {
  it('CLOSED: each success takes one off, never below zero', () => {
    const { b, events } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 3, T0);
    b.recordSuccess(T0, false);
    expect(b.failureCount(T0)).toBe(2);
    for (let i = 0; i < 5; i++) b.recordSuccess(T0, false);
    expect(b.failureCount(T0)).toBe(0);
    expect(b.status(T0)).toBe('CLOSED');
    expect(events).toEqual([]);
  });

  it('DEGRADED stays DEGRADED while the count is at or above the threshold', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 8, T0);
    expect(b.status(T0)).toBe('DEGRADED');
    b.recordSuccess(T0 + 1, false);
    expect(b.status(T0 + 1)).toBe('DEGRADED');
    expect(b.failureCount(T0 + 1)).toBe(7);
  });

  it('dropping below the degraded threshold returns DEGRADED to CLOSED, one transition', () => {
    const { b, events } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 7, T0);
    expect(b.status(T0)).toBe('DEGRADED');
    b.recordSuccess(T0 + 5, false);
    expect(b.status(T0 + 5)).toBe('CLOSED');
    expect(b.failureCount(T0 + 5)).toBe(6);
    expect(events.map((e) => [e.from, e.to, e.at])).toEqual([
      ['CLOSED', 'DEGRADED', T0],
      ['DEGRADED', 'CLOSED', T0 + 5],
    ]);
  });

  it('local: one failure degrades, one success heals, a second failure in a row opens', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.local);
    fail(b, 1, T0);
    expect(b.status(T0)).toBe('DEGRADED');
    b.recordSuccess(T0, false);
    expect(b.status(T0)).toBe('CLOSED');
    expect(b.failureCount(T0)).toBe(0);
    fail(b, 2, T0);
    expect(b.status(T0)).toBe('OPEN');
  });

  it('a failure count re-climbing from DEGRADED opens at the threshold', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.oauth);
    fail(b, 6, T0);
    b.recordSuccess(T0, false); // 5, still DEGRADED
    fail(b, 2, T0);
    expect(b.status(T0)).toBe('DEGRADED');
    fail(b, 1, T0);
    expect(b.status(T0)).toBe('OPEN');
    expect(b.failureCount(T0)).toBe(8);
  });
});

describe('§1 lazy recovery: any read promotes OPEN past its reset time', () => {
  for (const read of ['status', 'retryAfterMs', 'admit', 'failureCount', 'wouldAdmit'] as const) {
    it(`${read}() promotes OPEN to HALF_OPEN once the reset time has passed`, () => {
      const { b, events } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
      const at = T0 + 30_000;
      if (read === 'admit') b.admit(at, at + 5000);
      else b[read](at);
      expect(events.at(-1)).toMatchObject({ from: 'OPEN', to: 'HALF_OPEN', at });
      expect(events.at(-1)!.cause).toContain('30 s');
    });
  }

  it('no read before the reset time moves it, however often', () => {
    const { b, events } = opened(DEFAULT_BREAKER_PROFILES.oauth, T0);
    const n = events.length;
    for (let t = T0; t < T0 + 60_000; t += 7_000) {
      expect(b.status(t)).toBe('OPEN');
      expect(b.admit(t, t + 1).allowed).toBe(false);
    }
    expect(events.length).toBe(n);
  });
});

describe('§1 HALF_OPEN admits exactly one probe at a time', () => {
  it('the first caller is the probe; a second is refused with the time left on the probe permit', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    expect(b.admit(at, at + 10_000)).toEqual({ allowed: true, probe: true });
    expect(b.admit(at + 1, at + 20_000)).toEqual({ allowed: false, retryAfterMs: 9_999 });
    expect(b.retryAfterMs(at + 4_000)).toBe(6_000);
    expect(b.wouldAdmit(at + 4_000)).toBe(false);
    expect(b.status(at + 4_000)).toBe('HALF_OPEN');
  });

  it('a probe that never settles: its permit expires at its deadline and another probe is admitted', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    expect(b.admit(at, at + 10_000).allowed).toBe(true);
    expect(b.admit(at + 9_999, at + 30_000).allowed).toBe(false);
    expect(b.admit(at + 10_000, at + 30_000)).toEqual({ allowed: true, probe: true });
    expect(b.admit(at + 10_001, at + 40_000)).toEqual({ allowed: false, retryAfterMs: 19_999 });
  });

  it('a deadline already in the past still blocks a concurrent caller at the same instant', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    expect(b.admit(at, at - 5).allowed).toBe(true);
    expect(b.admit(at, at + 100).allowed).toBe(false);
  });

  it('releaseProbe gives the permit back without an outcome', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    b.admit(at, at + 10_000);
    b.releaseProbe();
    b.releaseProbe(); // safe twice
    expect(b.status(at)).toBe('HALF_OPEN');
    expect(b.admit(at + 1, at + 10_000)).toEqual({ allowed: true, probe: true });
  });

  it('a probe whose permit expired cannot release the permit of the probe after it', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    expect(b.admit(at, at + 1_000)).toEqual({ allowed: true, probe: true });
    const first = b.probeTicket();
    // The first probe's permit runs out; a second probe is admitted.
    expect(b.admit(at + 1_001, at + 20_000)).toEqual({ allowed: true, probe: true });
    const second = b.probeTicket();
    expect(second).not.toBe(first);
    b.releaseProbe(first); // the first probe's late clean-up
    expect(b.admit(at + 1_002, at + 20_000).allowed).toBe(false);
    b.releaseProbe(second);
    b.releaseProbe(second); // safe twice
    expect(b.admit(at + 1_003, at + 20_000)).toEqual({ allowed: true, probe: true });
  });

  it('outcomes of non-probe requests in HALF_OPEN change nothing', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    b.admit(at, at + 10_000);
    b.recordFailure(at + 1, false, 'HTTP 502');
    b.recordSuccess(at + 1, false);
    expect(b.status(at + 1)).toBe('HALF_OPEN');
    expect(b.admit(at + 2, at + 10).allowed).toBe(false);
  });
});

describe('§1 probe success → CLOSED (count reset)', () => {
  it('closes with zero failures and records the transition with its cause', () => {
    const { b, events } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    const at = T0 + 30_000;
    b.admit(at, at + 10_000);
    b.recordSuccess(at + 500, true);
    expect(b.status(at + 500)).toBe('CLOSED');
    expect(b.failureCount(at + 500)).toBe(0);
    expect(events.at(-1)).toEqual({
      at: at + 500,
      from: 'HALF_OPEN',
      to: 'CLOSED',
      cause: 'probe succeeded',
    });
    expect(b.admit(at + 501, at + 1000)).toEqual({ allowed: true, probe: false });
  });

  it('after a failed probe streak, a success restores the base reset timeout for the next opening', () => {
    const p = DEFAULT_BREAKER_PROFILES.local;
    const { b } = opened(p, T0);
    let t = T0 + 15_000;
    b.admit(t, t + 1);
    b.recordFailure(t, true, 'ECONNRESET'); // 30 s
    t += 30_000;
    b.admit(t, t + 1);
    b.recordSuccess(t, true);
    fail(b, 2, t);
    expect(b.retryAfterMs(t)).toBe(15_000);
  });
});

describe('§1 probe failure → OPEN again; each consecutive failed probe doubles the reset timeout, capped at 16×', () => {
  it('30 s → 60, 120, 240, 480, then stays at 480 s (16 × 30 s)', () => {
    const { b, events } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    let t = T0 + 30_000;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      expect(b.status(t)).toBe('HALF_OPEN');
      expect(b.admit(t, t + 5_000)).toEqual({ allowed: true, probe: true });
      b.recordFailure(t + 100, true, 'HTTP 503');
      expect(b.status(t + 100)).toBe('OPEN');
      const wait = b.retryAfterMs(t + 100);
      seen.push(wait);
      t = t + 100 + wait;
    }
    expect(seen).toEqual([60_000, 120_000, 240_000, 480_000, 480_000, 480_000]);
    expect(events.filter((e) => e.from === 'HALF_OPEN' && e.to === 'OPEN')[0]!.cause).toBe(
      'probe failed: HTTP 503',
    );
    const snap = b.toJSON().state;
    expect(snap.name).toBe('OPEN');
    if (snap.name === 'OPEN') expect(snap.failedProbes).toBe(6);
  });

  it('the failed probe keeps the breaker OPEN for the doubled time exactly', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.oauth, T0);
    const at = T0 + 60_000;
    b.admit(at, at + 1);
    b.recordFailure(at, true, 'timeout');
    expect(b.status(at + 119_999)).toBe('OPEN');
    expect(b.status(at + 120_000)).toBe('HALF_OPEN');
  });
});

describe('§1 keep the last 20 transitions per provider (time, from, to, cause)', () => {
  it('history holds the last 20, oldest dropped, each with its cause', () => {
    const { b, events } = make(DEFAULT_BREAKER_PROFILES.local);
    let t = T0;
    // Each cycle: CLOSED→DEGRADED→OPEN→HALF_OPEN→CLOSED = 4 transitions.
    for (let i = 0; i < 7; i++) {
      b.recordFailure(t, false, `fail-${i}-a`);
      b.recordFailure(t, false, `fail-${i}-b`);
      t += 15_000;
      b.admit(t, t + 1);
      b.recordSuccess(t, true);
      t += 1;
    }
    expect(events.length).toBe(28);
    const history = b.toJSON().history;
    expect(history.length).toBe(20);
    expect(history).toEqual(events.slice(-20));
    for (const h of history) {
      expect(typeof h.at).toBe('number');
      expect(h.cause.length).toBeGreaterThan(0);
      expect(h.from).not.toBe(h.to);
    }
    const open = history.find((h) => h.to === 'OPEN')!;
    expect(open.cause).toContain('2 failures');
    expect(open.cause).toMatch(/fail-\d-b/);
  });

  it('every state change emits exactly one event; non-changes emit none', () => {
    const { b, events } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 11, T0);
    expect(events.length).toBe(1);
    b.recordSuccess(T0, false);
    expect(events.length).toBe(1);
    fail(b, 2, T0);
    expect(events.length).toBe(2);
    expect(events[1]).toMatchObject({ from: 'DEGRADED', to: 'OPEN' });
  });

  it('an operator reset closes the breaker with its cause', () => {
    const { b, events } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    b.reset(T0 + 1, 'operator reset');
    expect(b.status(T0 + 1)).toBe('CLOSED');
    expect(b.failureCount(T0 + 1)).toBe(0);
    expect(events.at(-1)).toEqual({
      at: T0 + 1,
      from: 'OPEN',
      to: 'CLOSED',
      cause: 'operator reset',
    });
  });
});

describe('§1 persisted (state, failure count, opened at, reset timeout, history), restored on start', () => {
  it('toJSON() round-trips through the constructor and the restored breaker behaves the same', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.api_key, T0);
    b.admit(T0 + 30_000, T0 + 30_001);
    b.recordFailure(T0 + 30_000, true, 'HTTP 504'); // OPEN, 60 s
    const snap = JSON.parse(JSON.stringify(b.toJSON()));
    const restored = new CircuitBreaker('openai', DEFAULT_BREAKER_PROFILES.api_key, () => {}, snap);
    expect(restored.toJSON()).toEqual(b.toJSON());
    expect(restored.status(T0 + 89_999)).toBe('OPEN');
    expect(restored.retryAfterMs(T0 + 30_000)).toBe(60_000);
    expect(restored.status(T0 + 90_000)).toBe('HALF_OPEN');
    restored.admit(T0 + 90_000, T0 + 90_001);
    restored.recordFailure(T0 + 90_000, true, 'HTTP 504');
    expect(restored.retryAfterMs(T0 + 90_000)).toBe(120_000);
  });

  it('a restored OPEN whose reset time passed during the restart is HALF_OPEN on first read', () => {
    const { b } = opened(DEFAULT_BREAKER_PROFILES.oauth, T0);
    const events: BreakerTransition[] = [];
    const r = new CircuitBreaker(
      'openai',
      DEFAULT_BREAKER_PROFILES.oauth,
      (t) => events.push(t),
      b.toJSON(),
    );
    expect(r.status(T0 + 3_600_000)).toBe('HALF_OPEN');
    expect(events).toHaveLength(1);
  });

  it('the snapshot is a copy: later changes do not alter it', () => {
    const { b } = make(DEFAULT_BREAKER_PROFILES.api_key);
    fail(b, 7, T0);
    const snap = b.toJSON();
    fail(b, 5, T0);
    expect(snap.state).toEqual({ name: 'DEGRADED', failures: 7 });
    expect(snap.history).toHaveLength(1);
    const r = new CircuitBreaker('openai', DEFAULT_BREAKER_PROFILES.api_key, () => {}, snap);
    expect(r.status(T0)).toBe('DEGRADED');
    expect(r.failureCount(T0)).toBe(7);
  });

  it('a restored history longer than 20 keeps the last 20', () => {
    const history: BreakerTransition[] = Array.from({ length: 25 }, (_, i) => ({
      at: i,
      from: 'CLOSED',
      to: 'DEGRADED',
      cause: `c${i}`,
    }));
    const r = new CircuitBreaker('x', DEFAULT_BREAKER_PROFILES.api_key, () => {}, {
      state: { name: 'CLOSED', failures: 0 },
      history,
    });
    expect(r.toJSON().history.map((h) => h.cause)).toEqual(history.slice(5).map((h) => h.cause));
  });
});

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

type Op =
  | { kind: 'advance'; ms: number }
  | { kind: 'admit'; caller: number; deadlineIn: number }
  | { kind: 'success'; caller: number }
  | { kind: 'failure'; caller: number }
  | { kind: 'release'; caller: number }
  | { kind: 'read' };

// Weighted so that runs reach OPEN, pass the reset time and contend for the probe often.
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 40_000 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('admit' as const),
      caller: fc.integer({ min: 0, max: 3 }),
      deadlineIn: fc.integer({ min: -100, max: 20_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('success' as const),
      caller: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('failure' as const),
      caller: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      caller: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const) }) },
);

const profileArb = fc.constantFrom(
  DEFAULT_BREAKER_PROFILES.local,
  DEFAULT_BREAKER_PROFILES.oauth,
  DEFAULT_BREAKER_PROFILES.api_key,
  { degradationThreshold: 0, failureThreshold: 3, resetTimeoutMs: 1_000 },
  { degradationThreshold: 0, failureThreshold: 1, resetTimeoutMs: 500 },
);

describe('§1 properties of the breaker state machine', () => {
  it('HALF_OPEN never admits two probes at once, under any interleaving of admit/record/time', () => {
    let admittedProbes = 0;
    let refusedInHalfOpen = 0;
    fc.assert(
      fc.property(profileArb, fc.array(opArb, { maxLength: 80, size: 'max' }), (profile, ops) => {
        const b = new CircuitBreaker('p', profile);
        let now = T0;
        // Callers holding a probe permit → its deadline. A stale holder (permit expired) still
        // reports its outcome as a probe, which is a real interleaving.
        const probes = new Map<number, number>();
        let current: number | null = null;
        for (const op of ops) {
          switch (op.kind) {
            case 'advance':
              now += op.ms;
              break;
            case 'read':
              b.status(now);
              break;
            case 'admit': {
              const deadline = now + op.deadlineIn;
              const a = b.admit(now, deadline);
              if (a.allowed && a.probe) {
                // No permit still in force may coexist with a new probe.
                for (const until of probes.values()) expect(until).toBeLessThanOrEqual(now);
                probes.set(op.caller, Math.max(deadline, now + 1));
                current = op.caller;
                admittedProbes++;
              }
              if (!a.allowed) {
                expect(a.retryAfterMs).toBeGreaterThan(0);
                if (b.toJSON().state.name === 'HALF_OPEN') refusedInHalfOpen++;
              }
              break;
            }
            case 'success':
            case 'failure':
            case 'release': {
              const probe = probes.has(op.caller);
              if (op.kind === 'success') b.recordSuccess(now, probe);
              else if (op.kind === 'failure') b.recordFailure(now, probe, 'x');
              else if (probe && current === op.caller) b.releaseProbe();
              else if (probe) break; // a stale holder's release is not modelled (see report)
              probes.delete(op.caller);
              if (current === op.caller) current = null;
              break;
            }
          }
          // Leaving HALF_OPEN ends every permit.
          if (b.toJSON().state.name !== 'HALF_OPEN') {
            probes.clear();
            current = null;
          }
        }
      }),
      { numRuns: 100 },
    );
    // The generator does reach the contended cases.
    expect(admittedProbes).toBeGreaterThan(25);
    expect(refusedInHalfOpen).toBeGreaterThan(25);
  });

  it('a breaker always leaves OPEN once its reset time has passed and it is read', () => {
    fc.assert(
      fc.property(profileArb, fc.array(opArb, { maxLength: 60, size: 'max' }), (profile, ops) => {
        const b = new CircuitBreaker('p', profile);
        let now = T0;
        for (const op of ops) {
          if (op.kind === 'advance') now += op.ms;
          else if (op.kind === 'admit') b.admit(now, now + op.deadlineIn);
          else if (op.kind === 'success') b.recordSuccess(now, op.caller === 0);
          else if (op.kind === 'failure') b.recordFailure(now, op.caller === 0, 'x');
          else if (op.kind === 'release') b.releaseProbe();
          else b.status(now);
          if (b.status(now) === 'OPEN') {
            const wait = b.retryAfterMs(now);
            expect(wait).toBeGreaterThan(0);
            expect(wait).toBeLessThanOrEqual(profile.resetTimeoutMs * MAX_RESET_MULTIPLIER);
            // A read at the reset time leaves OPEN (on a copy, so the run goes on unchanged).
            const copy = new CircuitBreaker('p', profile, () => {}, b.toJSON());
            expect(copy.status(now + wait)).toBe('HALF_OPEN');
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the failure count is never negative, and CLOSED/DEGRADED match the thresholds', () => {
    fc.assert(
      fc.property(profileArb, fc.array(opArb, { maxLength: 80, size: 'max' }), (profile, ops) => {
        const b = new CircuitBreaker('p', profile);
        let now = T0;
        for (const op of ops) {
          if (op.kind === 'advance') now += op.ms;
          else if (op.kind === 'admit') b.admit(now, now + op.deadlineIn);
          else if (op.kind === 'success') b.recordSuccess(now, op.caller === 0);
          else if (op.kind === 'failure') b.recordFailure(now, op.caller === 0, 'x');
          else b.status(now);
          const n = b.failureCount(now);
          expect(n).toBeGreaterThanOrEqual(0);
          const s = b.status(now);
          if (s === 'CLOSED') expect(n).toBeLessThan(profile.failureThreshold);
          if (s === 'DEGRADED') {
            expect(n).toBeGreaterThanOrEqual(degradationThreshold(profile));
            expect(n).toBeLessThan(profile.failureThreshold);
          }
          expect(b.toJSON().history.length).toBeLessThanOrEqual(HISTORY_LIMIT);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('a snapshot taken at any point restores to a breaker that answers the same', () => {
    fc.assert(
      fc.property(
        profileArb,
        fc.array(opArb, { maxLength: 40, size: 'max' }),
        fc.nat(100_000),
        (profile, ops, later) => {
          const b = new CircuitBreaker('p', profile);
          let now = T0;
          for (const op of ops) {
            if (op.kind === 'advance') now += op.ms;
            else if (op.kind === 'admit') b.admit(now, now + op.deadlineIn);
            else if (op.kind === 'success') b.recordSuccess(now, op.caller === 0);
            else if (op.kind === 'failure') b.recordFailure(now, op.caller === 0, 'x');
          }
          const r = new CircuitBreaker(
            'p',
            profile,
            () => {},
            JSON.parse(JSON.stringify(b.toJSON())),
          );
          const t = now + later;
          expect(r.retryAfterMs(t)).toBe(b.retryAfterMs(t));
          expect(r.status(t)).toBe(b.status(t));
          expect(r.toJSON()).toEqual(b.toJSON());
        },
      ),
      { numRuns: 100 },
    );
  });
});
