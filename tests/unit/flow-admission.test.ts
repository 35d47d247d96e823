import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admit,
  clampQueueTime,
  effectiveExpiration,
  type QueueLimits,
  resolveLimits,
} from '../../src/main/engine/resilience/flow/admission';
import { findSetting } from '../../src/main/engine/settings/registry';

const DAY = 86_400_000;

const GLOBAL: QueueLimits = { maxWaitMs: 30_000, executionMaxWaitMs: 600_000, maxQueueDepth: 0 };

function limits(over: Partial<QueueLimits> = {}): QueueLimits {
  return { ...GLOBAL, ...over };
}

/** Any number a setting or override could hold, including the absurd (but not NaN). */
const anyNumber = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, 1, DAY, DAY + 1, 100_000, 100_001, Infinity, -Infinity),
);

describe('§5 maxQueueDepth: when that many requests already wait, a new one is rejected at once with RATE_LIMIT_QUEUE_FULL', () => {
  it('admits below the depth and refuses at it and beyond', () => {
    const l = limits({ maxQueueDepth: 2 });
    expect(admit(0, l)).toEqual({ admit: true });
    expect(admit(1, l)).toEqual({ admit: true });
    expect(admit(2, l)).toMatchObject({ admit: false, code: 'RATE_LIMIT_QUEUE_FULL' });
    expect(admit(3, l)).toMatchObject({ admit: false, code: 'RATE_LIMIT_QUEUE_FULL' });
  });

  it('depth 1: one waiting request is enough to refuse the next', () => {
    expect(admit(0, limits({ maxQueueDepth: 1 })).admit).toBe(true);
    expect(admit(1, limits({ maxQueueDepth: 1 })).admit).toBe(false);
  });

  it('the refusal carries a Retry-After of the wait budget, bounded to 1–60 s', () => {
    const retry = (maxWaitMs: number) => {
      const d = admit(5, limits({ maxQueueDepth: 1, maxWaitMs }));
      return d.admit ? null : d.retryAfterMs;
    };
    expect(retry(30_000)).toBe(30_000);
    expect(retry(1)).toBe(1_000);
    expect(retry(999)).toBe(1_000);
    expect(retry(60_000)).toBe(60_000);
    expect(retry(DAY)).toBe(60_000);
  });

  it('property: never admits when queued ≥ depth > 0, always admits when queued < depth', () => {
    fc.assert(
      fc.property(
        fc.nat(200_000),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: DAY }),
        (queued, depth, maxWaitMs) => {
          const d = admit(queued, limits({ maxQueueDepth: depth, maxWaitMs }));
          if (queued >= depth) {
            expect(d.admit).toBe(false);
            if (!d.admit) {
              expect(d.code).toBe('RATE_LIMIT_QUEUE_FULL');
              expect(d.retryAfterMs).toBeGreaterThanOrEqual(1_000);
              expect(d.retryAfterMs).toBeLessThanOrEqual(60_000);
            }
          } else {
            expect(d).toEqual({ admit: true });
          }
        },
      ),
    );
  });
});

describe('§5 maxQueueDepth default 0 = unlimited, range 0–100 000', () => {
  it('the default is 0 with env BREAKWATER_RATE_LIMIT_MAX_QUEUE_DEPTH and range 0–100 000', () => {
    expect(findSetting('rateLimit.maxQueueDepth')).toMatchObject({
      defaultValue: 0,
      env: 'BREAKWATER_RATE_LIMIT_MAX_QUEUE_DEPTH',
      min: 0,
      max: 100_000,
    });
  });

  it('property: depth 0 always admits, however many wait', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: DAY }), (queued, maxWaitMs) => {
        expect(admit(queued, limits({ maxQueueDepth: 0, maxWaitMs }))).toEqual({ admit: true });
      }),
    );
  });
});

describe('§5 maxWaitMs (default 30 000) and executionMaxWaitMs (default 600 000): both times clamped to 1 ms–24 h', () => {
  it('defaults and env names', () => {
    expect(findSetting('rateLimit.maxWaitMs')).toMatchObject({
      defaultValue: 30_000,
      env: 'BREAKWATER_RATE_LIMIT_MAX_WAIT_MS',
      min: 1,
      max: DAY,
    });
    expect(findSetting('rateLimit.executionMaxWaitMs')).toMatchObject({
      defaultValue: 600_000,
      env: 'BREAKWATER_RATE_LIMIT_EXECUTION_MAX_WAIT_MS',
      min: 1,
      max: DAY,
    });
  });

  it('clampQueueTime keeps a time inside 1 ms–24 h and rounds to whole ms', () => {
    expect(clampQueueTime(0)).toBe(1);
    expect(clampQueueTime(-5_000)).toBe(1);
    expect(clampQueueTime(0.4)).toBe(1);
    expect(clampQueueTime(1.6)).toBe(2);
    expect(clampQueueTime(30_000)).toBe(30_000);
    expect(clampQueueTime(DAY)).toBe(DAY);
    expect(clampQueueTime(DAY + 1)).toBe(DAY);
    expect(clampQueueTime(Infinity)).toBe(DAY);
    expect(clampQueueTime(-Infinity)).toBe(1);
  });
});

describe('§5 per-connection overrides: rateLimitOverrides.maxWaitMs, .executionMaxWaitMs, .maxQueueDepth', () => {
  it('without an override the effective global values apply', () => {
    expect(resolveLimits(GLOBAL, undefined)).toEqual(GLOBAL);
    expect(resolveLimits(GLOBAL, {})).toEqual(GLOBAL);
  });

  it('each override wins for its own field only', () => {
    expect(resolveLimits(GLOBAL, { maxWaitMs: 5_000 })).toEqual({ ...GLOBAL, maxWaitMs: 5_000 });
    expect(resolveLimits(GLOBAL, { executionMaxWaitMs: 90_000 })).toEqual({
      ...GLOBAL,
      executionMaxWaitMs: 90_000,
    });
    expect(resolveLimits(GLOBAL, { maxQueueDepth: 7 })).toEqual({ ...GLOBAL, maxQueueDepth: 7 });
  });

  it('an override of depth 0 makes one connection unlimited under a limited global', () => {
    expect(
      resolveLimits({ ...GLOBAL, maxQueueDepth: 50 }, { maxQueueDepth: 0 }).maxQueueDepth,
    ).toBe(0);
  });

  it('overrides and globals are clamped: times to 1 ms–24 h, depth to 0–100 000', () => {
    expect(
      resolveLimits(GLOBAL, { maxWaitMs: 0, executionMaxWaitMs: 2 * DAY, maxQueueDepth: 1e9 }),
    ).toEqual({ maxWaitMs: 1, executionMaxWaitMs: DAY, maxQueueDepth: 100_000 });
    expect(
      resolveLimits({ maxWaitMs: -1, executionMaxWaitMs: 0, maxQueueDepth: -3 }, undefined),
    ).toEqual({ maxWaitMs: 1, executionMaxWaitMs: 1, maxQueueDepth: 0 });
    expect(resolveLimits(GLOBAL, { maxQueueDepth: 2.6 }).maxQueueDepth).toBe(3);
  });

  it('property: the resolved limits are always within range and whole numbers', () => {
    const partial = fc.record(
      { maxWaitMs: anyNumber, executionMaxWaitMs: anyNumber, maxQueueDepth: anyNumber },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.record({
          maxWaitMs: anyNumber,
          executionMaxWaitMs: anyNumber,
          maxQueueDepth: anyNumber,
        }),
        fc.option(partial, { nil: undefined }),
        (global, override) => {
          const r = resolveLimits(global, override);
          for (const t of [r.maxWaitMs, r.executionMaxWaitMs]) {
            expect(Number.isInteger(t)).toBe(true);
            expect(t).toBeGreaterThanOrEqual(1);
            expect(t).toBeLessThanOrEqual(DAY);
          }
          expect(Number.isInteger(r.maxQueueDepth)).toBe(true);
          expect(r.maxQueueDepth).toBeGreaterThanOrEqual(0);
          expect(r.maxQueueDepth).toBeLessThanOrEqual(100_000);
          // An in-range override is taken as is.
          const w = override?.maxWaitMs;
          if (w !== undefined && Number.isInteger(w) && w >= 1 && w <= DAY) {
            expect(r.maxWaitMs).toBe(w);
          }
        },
      ),
    );
  });
});

describe('§5 executionMaxWaitMs is raised to the upstream timeout when that is longer, so it never kills a healthy response', () => {
  it('the longer of the two wins', () => {
    expect(effectiveExpiration(limits({ executionMaxWaitMs: 600_000 }), 300_000)).toBe(600_000);
    expect(effectiveExpiration(limits({ executionMaxWaitMs: 60_000 }), 300_000)).toBe(300_000);
    expect(effectiveExpiration(limits({ executionMaxWaitMs: 60_000 }), 0)).toBe(60_000);
  });

  it('property: never shorter than either the limit or the upstream timeout', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: DAY }),
        fc.integer({ min: 0, max: 2 * DAY }),
        (exec, upstream) => {
          const e = effectiveExpiration(limits({ executionMaxWaitMs: exec }), upstream);
          expect(e).toBeGreaterThanOrEqual(exec);
          expect(e).toBeGreaterThanOrEqual(upstream);
          expect([exec, upstream]).toContain(e);
        },
      ),
    );
  });
});
