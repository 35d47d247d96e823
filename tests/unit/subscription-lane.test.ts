import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currentLane,
  decideLane,
  IDLE,
  type LaneInput,
  type LaneState,
  laneAccepted,
  readUnified,
  restoreLane,
  slowMaxWaitMs,
  slowRetryDelayMs,
} from '../../src/main/engine/resilience/subscription/lane';
import {
  canTryLimitReset,
  currentLimitReset,
  failedLimitReset,
  READY,
  readResetResult,
  readUsage,
  restoreLimitReset,
} from '../../src/main/engine/resilience/subscription/limit-reset';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const S = 1_000;
const MIN = 60 * S;
const H = 60 * MIN;
const DAY = 24 * H;
/** The 5-hour window announced by the first limit 429 (epoch seconds on the wire). */
const RESET = T0 + 3 * H;

function headers(h: Record<string, string | number | boolean>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(h).map(([k, v]) => [`anthropic-ratelimit-unified-${k}`, String(v)]),
  );
}

const LIMIT_429 = headers({ status: 'rejected', reset: RESET / 1000, 'slow-offer': 'treatment' });

function input(over: Partial<LaneInput> & { h?: Record<string, string> }): LaneInput {
  const { h, ...rest } = over;
  return {
    state: IDLE,
    enabled: true,
    status: 429,
    signal: readUnified(h ?? LIMIT_429),
    waitedMs: 0,
    deadlineAt: T0 + 10 * MIN,
    random: 0.5,
    ...rest,
  };
}

const ACCEPTED: LaneState = { kind: 'accepted', since: T0, windowReset: RESET, until: RESET + MIN };

describe('§2 subscription accounts: the unified rate-limit headers', () => {
  it('reads status, reset (epoch seconds), offer, slow status, retry-after, max-wait and overage', () => {
    const s = readUnified(
      headers({
        status: 'rejected',
        reset: 1_750_000_000,
        'slow-offer': 'treatment',
        'slow-status': 'slot_busy',
        'slow-retry-after': 12.5,
        'slow-max-wait': 900,
        'overage-in-use': 'true',
        'slow-budget-reset': '2025-06-03T00:00:00Z',
      }),
    );
    expect(s).toEqual({
      status: 'rejected',
      reset: 1_750_000_000_000,
      slowOffer: 'treatment',
      slowStatus: 'slot_busy',
      slowRetryAfterMs: 12_500,
      slowMaxWaitMs: 900_000,
      overageInUse: true,
      budgetReset: Date.UTC(2025, 5, 3),
    });
  });

  it('leaves absent or unreadable headers empty', () => {
    const s = readUnified({ 'anthropic-ratelimit-unified-slow-retry-after': 'soon' });
    expect(s.status).toBeNull();
    expect(s.reset).toBeNull();
    expect(s.slowRetryAfterMs).toBeNull();
    expect(s.overageInUse).toBe(false);
  });
});

describe('§2 they act only on the 5-hour usage limit', () => {
  it('nothing happens before the first limit 429: successes and other responses pass', () => {
    for (const [status, h] of [
      [200, {}],
      [200, headers({ status: 'allowed', reset: RESET / 1000 })],
      [500, {}],
      [529, {}],
    ] as const) {
      expect(decideLane(input({ status, h }), T0)).toEqual({
        next: IDLE,
        outcome: { kind: 'pass' },
        change: null,
      });
    }
  });

  it('a 429 without the unified headers goes to the normal cooldown', () => {
    const d = decideLane(input({ h: { 'retry-after': '30' } }), T0);
    expect(d.outcome).toEqual({ kind: 'pass' });
    expect(d.next).toBe(IDLE);
  });

  it('a limit 429 on a connection without lowPriorityMode passes', () => {
    expect(decideLane(input({ enabled: false }), T0).outcome).toEqual({ kind: 'pass' });
  });

  it('a limit 429 without the offer (not eligible) passes', () => {
    const h = headers({ status: 'rejected', reset: RESET / 1000 });
    expect(decideLane(input({ h }), T0).outcome).toEqual({ kind: 'pass' });
    const control = headers({ status: 'rejected', reset: RESET / 1000, 'slow-offer': 'control' });
    expect(decideLane(input({ h: control }), T0).outcome).toEqual({ kind: 'pass' });
  });
});

describe('§2 low-priority lane: accept at once', () => {
  it('retries at once on the same connection and keeps the lane until reset + 60 s', () => {
    const d = decideLane(input({}), T0);
    expect(d.outcome).toEqual({ kind: 'retry', afterMs: 0 });
    expect(d.next).toEqual(ACCEPTED);
    expect(d.change).toEqual({ kind: 'accepted', until: RESET + MIN });
    expect(laneAccepted(d.next, RESET + MIN - 1)).toBe(true);
    expect(laneAccepted(d.next, RESET + MIN)).toBe(false);
  });

  it('ends lazily at reset + 60 s (read promotes it, once)', () => {
    expect(currentLane(ACCEPTED, RESET + MIN - 1)).toEqual({ state: ACCEPTED, change: null });
    expect(currentLane(ACCEPTED, RESET + MIN)).toEqual({
      state: IDLE,
      change: { kind: 'closed', reason: 'expired', refusedUntil: null },
    });
  });

  it('without an announced reset, the lane lasts one 5-hour window (+ 60 s)', () => {
    const d = decideLane(
      input({ h: headers({ status: 'rejected', 'slow-offer': 'treatment' }) }),
      T0,
    );
    expect(d.next).toMatchObject({ kind: 'accepted', until: T0 + 5 * H + MIN });
  });

  it('is not accepted when paid overage is in use or the slow budget is spent', () => {
    const overage = { ...LIMIT_429, 'anthropic-ratelimit-unified-overage-in-use': 'true' };
    expect(decideLane(input({ h: overage }), T0).outcome).toEqual({ kind: 'pass' });
    const spent = { ...LIMIT_429, 'anthropic-ratelimit-unified-slow-status': 'budget_exhausted' };
    const d = decideLane(input({ h: spent }), T0);
    expect(d.outcome).toEqual({ kind: 'pass' });
    expect(d.next).toEqual({ kind: 'refused', reason: 'budget_exhausted', until: T0 + 8 * DAY });
  });
});

describe('§2 low-priority lane: later responses', () => {
  it('active and not_needed keep the lane', () => {
    for (const slow of ['active', 'not_needed']) {
      const h = headers({ status: 'allowed', reset: RESET / 1000, 'slow-status': slow });
      expect(decideLane(input({ state: ACCEPTED, status: 200, h }), T0 + MIN)).toEqual({
        next: ACCEPTED,
        outcome: { kind: 'pass' },
        change: null,
      });
    }
  });

  it('slot_busy waits the announced retry-after with ±30 % jitter, then retries', () => {
    const h = headers({
      status: 'rejected',
      reset: RESET / 1000,
      'slow-status': 'slot_busy',
      'slow-retry-after': 30,
    });
    for (const [random, ms] of [
      [0, 21_000],
      [0.5, 30_000],
      [1, 39_000],
    ] as const) {
      const d = decideLane(input({ state: ACCEPTED, h, random }), T0);
      expect(d).toEqual({ next: ACCEPTED, outcome: { kind: 'retry', afterMs: ms }, change: null });
    }
  });

  it('a 529 in the lane waits like slot_busy (default 20 s)', () => {
    const d = decideLane(input({ state: ACCEPTED, status: 529, h: {} }), T0);
    expect(d.outcome).toEqual({ kind: 'retry', afterMs: 20_000 });
  });

  it('the slow retry-after defaults to 20 s and is clamped to 5–600 s before the jitter', () => {
    expect(slowRetryDelayMs(null, 0.5)).toBe(20_000);
    expect(slowRetryDelayMs(1_000, 0.5)).toBe(5_000);
    expect(slowRetryDelayMs(1_000, 0)).toBe(3_500);
    expect(slowRetryDelayMs(3_600_000, 0.5)).toBe(600_000);
    expect(slowRetryDelayMs(3_600_000, 1)).toBe(780_000);
  });

  it('the slow max-wait defaults to 20 min and is clamped to 1 min–6 h', () => {
    expect(slowMaxWaitMs(null)).toBe(20 * MIN);
    expect(slowMaxWaitMs(10 * S)).toBe(MIN);
    expect(slowMaxWaitMs(7 * H)).toBe(6 * H);
    expect(slowMaxWaitMs(30 * MIN)).toBe(30 * MIN);
  });

  const busy = headers({ status: 'rejected', reset: RESET / 1000, 'slow-status': 'slot_busy' });

  it('past the max-wait: closed as max_wait, refused for 10 min, the response goes to the cooldown', () => {
    const d = decideLane(input({ state: ACCEPTED, h: busy, waitedMs: 20 * MIN - 19_999 }), T0);
    expect(d.outcome).toEqual({ kind: 'pass' });
    expect(d.next).toEqual({ kind: 'refused', reason: 'max_wait', until: T0 + 10 * MIN });
    expect(d.change).toEqual({ kind: 'closed', reason: 'max_wait', refusedUntil: T0 + 10 * MIN });
    // Refused: the next limit 429 is not accepted …
    expect(decideLane(input({ state: d.next }), T0 + 10 * MIN - 1).outcome).toEqual({
      kind: 'pass',
    });
    // … until the refusal has ended.
    const later = currentLane(d.next, T0 + 10 * MIN);
    expect(later).toEqual({ state: IDLE, change: { kind: 'refusal_ended' } });
    expect(decideLane(input({ state: later.state }), T0 + 10 * MIN).outcome).toEqual({
      kind: 'retry',
      afterMs: 0,
    });
  });

  it('a wait that would pass the request deadline minus 5 s ends as max_wait', () => {
    const deadlineAt = T0 + 25 * S;
    expect(decideLane(input({ state: ACCEPTED, h: busy, deadlineAt }), T0).outcome).toEqual({
      kind: 'pass',
    });
    expect(
      decideLane(input({ state: ACCEPTED, h: busy, deadlineAt: T0 + 25 * S + 1 }), T0).outcome,
    ).toEqual({ kind: 'retry', afterMs: 20_000 });
  });

  it('weekly_limit, off and ineligible close the lane and pass the response on', () => {
    for (const slow of ['weekly_limit', 'off', 'ineligible']) {
      const h = headers({ status: 'rejected', reset: RESET / 1000, 'slow-status': slow });
      const d = decideLane(input({ state: ACCEPTED, h }), T0);
      expect(d).toEqual({
        next: IDLE,
        outcome: { kind: 'pass' },
        change: { kind: 'closed', reason: slow, refusedUntil: null },
      });
    }
  });

  it('budget_exhausted is remembered until the announced budget reset, at most 8 days', () => {
    const soon = headers({
      'slow-status': 'budget_exhausted',
      'slow-budget-reset': (T0 + 2 * DAY) / 1000,
    });
    expect(decideLane(input({ state: ACCEPTED, status: 200, h: soon }), T0).next).toEqual({
      kind: 'refused',
      reason: 'budget_exhausted',
      until: T0 + 2 * DAY,
    });
    const far = headers({
      'slow-status': 'budget_exhausted',
      'slow-budget-reset': (T0 + 30 * DAY) / 1000,
    });
    expect(decideLane(input({ state: ACCEPTED, status: 200, h: far }), T0).next).toMatchObject({
      until: T0 + 8 * DAY,
    });
  });

  it('a change of the 5-hour window closes the lane', () => {
    const h = headers({
      status: 'allowed',
      reset: (RESET + 5 * H) / 1000,
      'slow-status': 'active',
    });
    const d = decideLane(input({ state: ACCEPTED, status: 200, h }), T0);
    expect(d.next).toBe(IDLE);
    expect(d.change).toMatchObject({ reason: 'window_changed' });
  });

  it('overage in use closes the lane as extra_usage whatever the status', () => {
    const h = headers({ reset: RESET / 1000, 'slow-status': 'active', 'overage-in-use': 'true' });
    const d = decideLane(input({ state: ACCEPTED, status: 200, h }), T0);
    expect(d.next).toBe(IDLE);
    expect(d.change).toMatchObject({ reason: 'extra_usage' });
    const busyToo = { ...busy, 'anthropic-ratelimit-unified-overage-in-use': 'true' };
    expect(decideLane(input({ state: ACCEPTED, h: busyToo }), T0).change).toMatchObject({
      reason: 'extra_usage',
    });
  });

  it('waits never add up past the max-wait nor the deadline minus 5 s (any retry-after, any jitter)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 900 }), fc.double({ min: 0, max: 1, noNaN: true })),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.integer({ min: 0, max: (8 * H) / S }),
        fc.integer({ min: 10, max: (3 * H) / S }),
        (answers, maxWaitS, deadlineS) => {
          let now = T0;
          let waited = 0;
          let state: LaneState = ACCEPTED;
          const deadlineAt = T0 + deadlineS * S;
          const limit = slowMaxWaitMs(maxWaitS * S);
          for (const [retryAfter, random] of answers) {
            const h = {
              ...busy,
              ...headers({ 'slow-retry-after': retryAfter, 'slow-max-wait': maxWaitS }),
            };
            const d = decideLane(input({ state, h, waitedMs: waited, deadlineAt, random }), now);
            state = d.next;
            if (d.outcome.kind === 'pass') {
              expect(state).toMatchObject({ kind: 'refused', reason: 'max_wait' });
              return;
            }
            waited += d.outcome.afterMs;
            now += d.outcome.afterMs;
            expect(waited).toBeLessThanOrEqual(limit);
            expect(now).toBeLessThanOrEqual(deadlineAt - 5 * S);
          }
        },
      ),
    );
  });
});

describe('§2 lane state is persisted (round-trip)', () => {
  it('restores what it saved, and anything malformed as idle', () => {
    const refused: LaneState = { kind: 'refused', reason: 'max_wait', until: T0 + MIN };
    for (const s of [IDLE, ACCEPTED, refused]) {
      expect(restoreLane(JSON.parse(JSON.stringify(s)))).toEqual(s);
    }
    expect(restoreLane({ kind: 'accepted', until: 'x' })).toEqual(IDLE);
    expect(restoreLane(null)).toEqual(IDLE);
  });
});

describe('§2 limit reset', () => {
  it('usage with arm "reset" and available → call the reset endpoint', () => {
    expect(readUsage({ juniper_tide: { arm: 'reset', available: true } }, T0)).toEqual({
      kind: 'call',
    });
  });

  it('usage without an available reset → not before next_available_at (default one week)', () => {
    const at = '2025-06-04T00:00:00Z';
    expect(
      readUsage({ juniper_tide: { arm: 'reset', available: false, next_available_at: at } }, T0),
    ).toEqual({
      kind: 'unavailable',
      result: 'already_used',
      next: { kind: 'blocked', reason: 'already_used', until: Date.parse(at) },
    });
    expect(readUsage({ juniper_tide: { arm: 'control', available: true } }, T0)).toMatchObject({
      next: { reason: 'not_offered', until: T0 + 7 * DAY },
    });
    expect(readUsage({ other: 1 }, T0)).toMatchObject({ next: { until: T0 + 7 * DAY } });
    expect(readUsage('nope', T0)).toBeNull();
  });

  it('reset / not_limited → retry at full speed; a used reset waits for its next week', () => {
    expect(readResetResult({ result: 'reset' }, T0)).toEqual({
      kind: 'retry',
      result: 'reset',
      next: { kind: 'blocked', reason: 'used', until: T0 + 7 * DAY },
    });
    expect(readResetResult({ result: 'not_limited' }, T0)).toEqual({
      kind: 'retry',
      result: 'not_limited',
      next: READY,
    });
  });

  it('already_used / not_offered → remember next_available_at (default one week)', () => {
    expect(
      readResetResult({ result: 'already_used', next_available_at: (T0 + DAY) / 1000 }, T0),
    ).toMatchObject({
      kind: 'unavailable',
      next: { reason: 'already_used', until: T0 + DAY },
    });
    expect(readResetResult({ status: 'not_offered' }, T0)).toMatchObject({
      kind: 'unavailable',
      next: { reason: 'not_offered', until: T0 + 7 * DAY },
    });
    expect(readResetResult({ result: 'maybe' }, T0)).toBeNull();
  });

  it('any failure → not tried again for 15 min', () => {
    const failed = failedLimitReset(T0);
    expect(canTryLimitReset(failed, T0 + 15 * MIN - 1)).toBe(false);
    expect(canTryLimitReset(failed, T0 + 15 * MIN)).toBe(true);
    expect(currentLimitReset(failed, T0 + 15 * MIN)).toBe(READY);
    expect(restoreLimitReset(JSON.parse(JSON.stringify(failed)))).toEqual(failed);
    expect(restoreLimitReset({ kind: 'blocked', reason: 'x', until: 1 })).toBe(READY);
  });
});
