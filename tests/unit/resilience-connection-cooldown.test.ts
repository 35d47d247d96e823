import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILURES_TO_EXPIRE,
  applyFailure,
  applySuccess,
  backoffMs,
  type ConnectionFailure,
  type CooldownOptions,
  cleared,
  current,
  type FailureInfo,
  HEALTHY,
  isHealthy,
  isTerminal,
  REFUSALS_TO_BAN,
} from '../../src/main/engine/resilience/health/connection-cooldown';
import type { ConnectionHealth, TerminalStatus } from '../../src/main/engine/store/state-records';

const T0 = 1_700_000_000_000;
const CAP = 30 * 60_000;
const OAUTH: CooldownOptions = { baseMs: 5_000, capMs: CAP, disableCooling: false };
const API_KEY: CooldownOptions = { baseMs: 3_000, capMs: CAP, disableCooling: false };

function info(
  failure: ConnectionFailure,
  requestStartedAt: number,
  message = 'HTTP 429',
): FailureInfo {
  return { failure, reason: 'rate_limit_exceeded', errorCode: '429', message, requestStartedAt };
}

const COOL: ConnectionFailure = { kind: 'cooldown' };

/** Fails once at `now` (request started at `now`), returns the new health. */
function failAt(h: ConnectionHealth, now: number, opts = API_KEY, f: ConnectionFailure = COOL) {
  return applyFailure(h, info(f, now), opts, now);
}

describe('§2 base cooldown 5 s oauth / 3 s api_key; cooldown = min(cap, base × 2^L), then L += 1', () => {
  it('api_key: 3, 6, 12, 24 s on failures after each cooldown ends', () => {
    let h = HEALTHY;
    let now = T0;
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = failAt(h, now);
      expect(r.change.kind).toBe('cooldown');
      if (r.change.kind === 'cooldown') seen.push(r.change.until - now);
      h = r.health;
      expect(h.backoffLevel).toBe(i + 1);
      expect(h.status).toBe('unavailable');
      now = h.rateLimitedUntil!;
    }
    expect(seen).toEqual([3_000, 6_000, 12_000, 24_000]);
  });

  it('oauth: 5, 10, 20 s', () => {
    let h = HEALTHY;
    let now = T0;
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      h = failAt(h, now, OAUTH).health;
      seen.push(h.rateLimitedUntil! - now);
      now = h.rateLimitedUntil!;
    }
    expect(seen).toEqual([5_000, 10_000, 20_000]);
  });

  it('the cap (30 min default) bounds the backoff', () => {
    expect(backoffMs(0, OAUTH)).toBe(5_000);
    expect(backoffMs(8, OAUTH)).toBe(1_280_000);
    expect(backoffMs(9, OAUTH)).toBe(CAP);
    expect(backoffMs(1_000, OAUTH)).toBe(CAP);
    const h = failAt({ ...HEALTHY, backoffLevel: 20 }, T0, API_KEY).health;
    expect(h.rateLimitedUntil).toBe(T0 + CAP);
    expect(h.backoffLevel).toBe(21);
  });

  it('records lastError, lastErrorType, errorCode and when the cooldown was set', () => {
    const { health } = applyFailure(
      HEALTHY,
      {
        failure: COOL,
        reason: 'rate_limit_exceeded',
        errorCode: 'rate_limit',
        message: 'slow down',
        requestStartedAt: T0,
      },
      API_KEY,
      T0,
    );
    expect(health).toMatchObject({
      status: 'unavailable',
      rateLimitedUntil: T0 + 3_000,
      lastError: 'slow down',
      lastErrorType: 'rate_limit_exceeded',
      errorCode: 'rate_limit',
      cooldownSetAt: T0,
      backoffLevel: 1,
    });
  });

  it('a declared rule cooldown replaces the backoff (and may exceed the cap)', () => {
    const r = failAt(HEALTHY, T0, API_KEY, { kind: 'cooldown', ruleCooldownMs: 3_600_000 });
    expect(r.health.rateLimitedUntil).toBe(T0 + 3_600_000);
    expect(r.health.backoffLevel).toBe(1);
  });
});

describe('§2 on 429, prefer what the upstream says; fall back to the backoff', () => {
  it('an announced Retry-After wins over the backoff, longer or shorter', () => {
    const longer = failAt(HEALTHY, T0, API_KEY, { kind: 'cooldown', announcedMs: 20_000 });
    expect(longer.health.rateLimitedUntil).toBe(T0 + 20_000);
    const shorter = failAt({ ...HEALTHY, backoffLevel: 5 }, T0, API_KEY, {
      kind: 'cooldown',
      announcedMs: 1_000,
    });
    expect(shorter.health.rateLimitedUntil).toBe(T0 + 1_000);
    expect(shorter.change).toEqual({ kind: 'cooldown', until: T0 + 1_000 });
  });

  it('an announced reset wins over a rule cooldown too', () => {
    const r = failAt(HEALTHY, T0, API_KEY, {
      kind: 'cooldown',
      announcedMs: 90_000,
      ruleCooldownMs: 3_600_000,
    });
    expect(r.health.rateLimitedUntil).toBe(T0 + 90_000);
  });

  it('null announced falls back to the backoff', () => {
    const r = failAt(HEALTHY, T0, OAUTH, {
      kind: 'cooldown',
      announcedMs: null,
      ruleCooldownMs: null,
    });
    expect(r.health.rateLimitedUntil).toBe(T0 + 5_000);
  });

  it('an announced reset beyond the cap is taken as is (quota resets can be hours away), within a week', () => {
    const hours = failAt(HEALTHY, T0, API_KEY, { kind: 'cooldown', announcedMs: 5 * 3_600_000 });
    expect(hours.health.rateLimitedUntil).toBe(T0 + 5 * 3_600_000);
    const absurd = failAt(HEALTHY, T0, API_KEY, {
      kind: 'cooldown',
      announcedMs: 365 * 86_400_000,
    });
    expect(absurd.health.rateLimitedUntil).toBe(T0 + 7 * 86_400_000);
  });

  it('an announced zero (reset already passed) leaves the connection eligible at once', () => {
    const r = failAt(HEALTHY, T0, API_KEY, { kind: 'cooldown', announcedMs: 0 });
    expect(current(r.health, T0).status).toBe('active');
  });
});

describe('§2 herd guard: a failure while cooling, or from a request started before the cooldown was set, changes neither rateLimitedUntil nor backoffLevel', () => {
  const cooling = failAt(HEALTHY, T0, API_KEY).health; // until T0 + 3 s, level 1

  it('a failure while rateLimitedUntil is in the future changes nothing', () => {
    const r = applyFailure(cooling, info(COOL, T0 + 1_000), API_KEY, T0 + 1_000);
    expect(r.change).toEqual({ kind: 'none' });
    expect(r.health.rateLimitedUntil).toBe(cooling.rateLimitedUntil);
    expect(r.health.backoffLevel).toBe(1);
  });

  it('a burst of N in-flight failures is one event, not N', () => {
    let h = HEALTHY;
    const changes = [];
    for (let i = 0; i < 10; i++) {
      const r = applyFailure(h, info(COOL, T0 - 500), API_KEY, T0 + i);
      changes.push(r.change.kind);
      h = r.health;
    }
    expect(changes.filter((c) => c === 'cooldown')).toHaveLength(1);
    expect(h.backoffLevel).toBe(1);
    expect(h.rateLimitedUntil).toBe(T0 + 3_000);
  });

  it('after the cooldown ended, a failure of a request started before it was set changes nothing', () => {
    const after = T0 + 10_000;
    const r = applyFailure(cooling, info(COOL, T0 - 1), API_KEY, after);
    expect(r.change).toEqual({ kind: 'none' });
    expect(r.health.backoffLevel).toBe(1);
    expect(r.health.status).toBe('active');
    // A request started after the cooldown was set does count, with the next backoff step.
    const fresh = applyFailure(cooling, info(COOL, T0 + 5_000), API_KEY, after);
    expect(fresh.health.rateLimitedUntil).toBe(after + 6_000);
    expect(fresh.health.backoffLevel).toBe(2);
  });

  it('unless it carries a longer upstream-announced reset: then only rateLimitedUntil moves', () => {
    const r = applyFailure(
      cooling,
      info({ kind: 'cooldown', announcedMs: 60_000 }, T0),
      API_KEY,
      T0 + 1_000,
    );
    expect(r.change).toEqual({ kind: 'cooldown', until: T0 + 61_000 });
    expect(r.health.rateLimitedUntil).toBe(T0 + 61_000);
    expect(r.health.backoffLevel).toBe(1);
    expect(r.health.status).toBe('unavailable');
  });

  it('a shorter announced reset does not shorten the cooldown', () => {
    const long = failAt(HEALTHY, T0, API_KEY, { kind: 'cooldown', announcedMs: 60_000 }).health;
    const r = applyFailure(
      long,
      info({ kind: 'cooldown', announcedMs: 5_000 }, T0 + 1),
      API_KEY,
      T0 + 1_000,
    );
    expect(r.change).toEqual({ kind: 'none' });
    expect(r.health.rateLimitedUntil).toBe(T0 + 60_000);
  });

  it('a rule cooldown is not an announced reset: it does not move a running cooldown', () => {
    const r = applyFailure(
      cooling,
      info({ kind: 'cooldown', ruleCooldownMs: 3_600_000 }, T0),
      API_KEY,
      T0 + 1,
    );
    expect(r.change).toEqual({ kind: 'none' });
  });
});

describe('§2 terminal states are not cooldowns and are never overwritten by one', () => {
  for (const status of ['banned', 'expired', 'credits_exhausted'] as const) {
    it(`${status}: a terminal failure sets it; later cooldowns, refusals and successes leave it`, () => {
      const r = applyFailure(HEALTHY, info({ kind: 'terminal', status }, T0), API_KEY, T0);
      expect(r.change).toEqual({ kind: 'terminal', status });
      expect(r.health.status).toBe(status);
      expect(r.health.rateLimitedUntil).toBeNull();
      const later = [
        COOL,
        { kind: 'cooldown', announcedMs: 999_999 },
        { kind: 'refusal' },
        { kind: 'expired_credentials' },
        { kind: 'terminal', status: status === 'banned' ? 'expired' : 'banned' },
      ] as ConnectionFailure[];
      let h = r.health;
      for (const f of later) {
        const x = applyFailure(h, info(f, T0 + 10), API_KEY, T0 + 10);
        expect(x.change).toEqual({ kind: 'none' });
        h = x.health;
      }
      expect(h).toEqual(r.health);
      expect(applySuccess(h, T0 + 20)).toEqual(r.health);
      expect(current(h, T0 + 10 ** 9).status).toBe(status);
      expect(isTerminal(status)).toBe(true);
    });
  }

  it('a terminal signal replaces a running cooldown', () => {
    const cooling = failAt(HEALTHY, T0).health;
    const r = applyFailure(
      cooling,
      info({ kind: 'terminal', status: 'credits_exhausted' }, T0),
      API_KEY,
      T0 + 1,
    );
    expect(r.health.status).toBe('credits_exhausted');
    expect(r.health.rateLimitedUntil).toBeNull();
  });

  it('terminal signals apply even with disableCooling (it opts out of cooling only)', () => {
    const r = applyFailure(
      HEALTHY,
      info({ kind: 'terminal', status: 'banned' }, T0),
      { ...API_KEY, disableCooling: true },
      T0,
    );
    expect(r.health.status).toBe('banned');
  });

  it('only an operator reset or a changed credential ends them', () => {
    expect(cleared()).toEqual(HEALTHY);
    expect(isTerminal('active')).toBe(false);
    expect(isTerminal('unavailable')).toBe(false);
  });
});

describe('§2 banned after 3 consecutive upstream refusals; refusals 1–2 only cool; any success resets the streak', () => {
  const REFUSAL: ConnectionFailure = { kind: 'refusal' };

  it('1 and 2 cool the connection, the 3rd bans it', () => {
    expect(REFUSALS_TO_BAN).toBe(3);
    let h = HEALTHY;
    let now = T0;
    for (let i = 1; i <= 2; i++) {
      const r = failAt(h, now, OAUTH, REFUSAL);
      expect(r.change.kind).toBe('cooldown');
      expect(r.health.status).toBe('unavailable');
      expect(r.health.refusalStreak).toBe(i);
      h = r.health;
      now = h.rateLimitedUntil!;
    }
    const third = failAt(h, now, OAUTH, REFUSAL);
    expect(third.change).toEqual({ kind: 'terminal', status: 'banned' });
    expect(third.health.status).toBe('banned');
  });

  it('refusals counted while cooling (herd guard) still count toward the ban', () => {
    let h = HEALTHY;
    for (let i = 0; i < 3; i++) h = applyFailure(h, info(REFUSAL, T0), OAUTH, T0 + i).health;
    expect(h.status).toBe('banned');
  });

  it('a success between refusals resets the streak', () => {
    let h = failAt(HEALTHY, T0, OAUTH, REFUSAL).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, REFUSAL).health;
    h = applySuccess(h, h.rateLimitedUntil!);
    expect(h.refusalStreak).toBe(0);
    let now = T0 + 100_000;
    for (let i = 0; i < 2; i++) {
      h = failAt(h, now, OAUTH, REFUSAL).health;
      now = h.rateLimitedUntil!;
    }
    expect(h.status).toBe('unavailable');
  });

  it('other failures in between do not reset the streak', () => {
    let h = failAt(HEALTHY, T0, OAUTH, REFUSAL).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, COOL).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, REFUSAL).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, REFUSAL).health;
    expect(h.status).toBe('banned');
  });
});

describe('§2 expired: credentials expired, after 3 retries with exponential backoff', () => {
  const EXPIRED: ConnectionFailure = { kind: 'expired_credentials' };

  it('the first two expired-credential failures cool with the backoff; the 3rd is terminal', () => {
    expect(AUTH_FAILURES_TO_EXPIRE).toBe(3);
    let h = HEALTHY;
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) {
      const r = failAt(h, now, OAUTH, EXPIRED);
      expect(r.health.status).toBe('unavailable');
      waits.push(r.health.rateLimitedUntil! - now);
      h = r.health;
      now = h.rateLimitedUntil!;
    }
    expect(waits).toEqual([5_000, 10_000]);
    const r = failAt(h, now, OAUTH, EXPIRED);
    expect(r.change).toEqual({ kind: 'terminal', status: 'expired' });
  });

  it('a transient auth hiccup heals itself: a success in between resets the count', () => {
    let h = failAt(HEALTHY, T0, OAUTH, EXPIRED).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, EXPIRED).health;
    h = applySuccess(h, h.rateLimitedUntil!);
    expect(h.authFailures).toBe(0);
    h = failAt(h, T0 + 60_000, OAUTH, EXPIRED).health;
    expect(h.status).toBe('unavailable');
  });
});

describe('§2 per-connection opt-out: disableCooling', () => {
  const OFF: CooldownOptions = { ...API_KEY, disableCooling: true };

  it('a cooldown failure is noted but never cools', () => {
    const r = applyFailure(
      HEALTHY,
      info({ kind: 'cooldown', announcedMs: 60_000 }, T0, 'boom'),
      OFF,
      T0,
    );
    expect(r.change).toEqual({ kind: 'none' });
    expect(r.health.status).toBe('active');
    expect(r.health.rateLimitedUntil).toBeNull();
    expect(r.health.backoffLevel).toBe(0);
    expect(r.health.lastError).toBe('boom');
  });

  it('refusals still count toward a ban, without cooling', () => {
    let h = HEALTHY;
    for (let i = 0; i < 2; i++)
      h = applyFailure(h, info({ kind: 'refusal' }, T0), OFF, T0 + i).health;
    expect(h.status).toBe('active');
    expect(h.refusalStreak).toBe(2);
    expect(applyFailure(h, info({ kind: 'refusal' }, T0), OFF, T0 + 5).health.status).toBe(
      'banned',
    );
  });
});

describe('§2 recovery: eligible again once rateLimitedUntil has passed; a success clears every error field', () => {
  it('current() promotes lazily at rateLimitedUntil and keeps backoffLevel until a success', () => {
    const h = failAt(failAt(HEALTHY, T0).health, T0 + 3_000).health; // level 2, until +6 s
    expect(current(h, T0 + 8_999)).toBe(h);
    const promoted = current(h, T0 + 9_000);
    expect(promoted.status).toBe('active');
    expect(promoted.rateLimitedUntil).toBeNull();
    expect(promoted.backoffLevel).toBe(2);
    expect(current(HEALTHY, T0)).toBe(HEALTHY);
  });

  it('the next failure after recovery continues the backoff (no success in between)', () => {
    const h = failAt(failAt(HEALTHY, T0).health, T0 + 3_000).health;
    const r = failAt(h, T0 + 20_000);
    expect(r.health.rateLimitedUntil).toBe(T0 + 20_000 + 12_000);
  });

  it('a success clears every error field and resets backoffLevel', () => {
    let h = failAt(HEALTHY, T0, OAUTH, { kind: 'refusal' }).health;
    h = failAt(h, h.rateLimitedUntil!, OAUTH, { kind: 'expired_credentials' }).health;
    expect(isHealthy(h)).toBe(false);
    const ok = applySuccess(h, h.rateLimitedUntil! - 1);
    expect(ok).toEqual(HEALTHY);
    expect(isHealthy(ok)).toBe(true);
    // The backoff starts again from the base.
    expect(failAt(ok, T0 + 100_000, OAUTH).health.rateLimitedUntil).toBe(T0 + 105_000);
  });
});

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

type Step =
  | { kind: 'fail'; failure: ConnectionFailure; startedAgo: number }
  | { kind: 'success' }
  | { kind: 'advance'; ms: number };

const failureArb: fc.Arbitrary<ConnectionFailure> = fc.oneof(
  fc.record({
    kind: fc.constant('cooldown' as const),
    announcedMs: fc.option(fc.integer({ min: 0, max: 10 * 86_400_000 }), { nil: null }),
    ruleCooldownMs: fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: null }),
  }),
  fc.constant<ConnectionFailure>({ kind: 'refusal' }),
  fc.constant<ConnectionFailure>({ kind: 'expired_credentials' }),
  fc
    .constantFrom<TerminalStatus>('banned', 'expired', 'credits_exhausted')
    .map((status): ConnectionFailure => ({ kind: 'terminal', status })),
);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      failure: failureArb,
      startedAgo: fc.nat(60_000),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('success' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.nat(3_600_000) }),
  },
);

const optsArb = fc.record({
  baseMs: fc.constantFrom(3_000, 5_000),
  capMs: fc.constantFrom(CAP, 60_000),
  disableCooling: fc.boolean(),
});

describe('§2 properties of connection cooldown', () => {
  it('a terminal state is never replaced by a cooldown under any sequence of failures and successes', () => {
    fc.assert(
      fc.property(optsArb, fc.array(stepArb, { maxLength: 60, size: 'max' }), (opts, steps) => {
        let h = HEALTHY;
        let now = T0;
        let terminal: ConnectionHealth | null = null;
        for (const s of steps) {
          if (s.kind === 'advance') now += s.ms;
          else if (s.kind === 'success') h = applySuccess(h, now);
          else {
            const r = applyFailure(h, info(s.failure, now - s.startedAgo), opts, now);
            if (terminal) expect(r.change.kind).toBe('none');
            h = r.health;
          }
          if (terminal)
            expect(h).toBe(terminal); // not even a copy: nothing changes
          else if (isTerminal(h.status)) terminal = h;
          if (isTerminal(h.status)) {
            expect(h.rateLimitedUntil).toBeNull();
            expect(current(h, now + 10 ** 10)).toBe(h);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('backoffLevel never decreases except by a success, and a cooldown never ends before now', () => {
    fc.assert(
      fc.property(optsArb, fc.array(stepArb, { maxLength: 60, size: 'max' }), (opts, steps) => {
        let h = HEALTHY;
        let now = T0;
        for (const s of steps) {
          const before = h;
          if (s.kind === 'advance') now += s.ms;
          else if (s.kind === 'success') h = applySuccess(h, now);
          else {
            const r = applyFailure(h, info(s.failure, now - s.startedAgo), opts, now);
            h = r.health;
            expect(h.backoffLevel).toBeGreaterThanOrEqual(before.backoffLevel);
            expect(h.backoffLevel - before.backoffLevel).toBeLessThanOrEqual(1);
            if (r.change.kind === 'cooldown') {
              expect(r.change.until).toBeGreaterThanOrEqual(now);
              expect(h.rateLimitedUntil).toBe(r.change.until);
              expect(opts.disableCooling).toBe(false);
              // A cooldown never shortens one that is running.
              const running = current(before, now).rateLimitedUntil;
              if (running !== null) expect(r.change.until).toBeGreaterThan(running);
            }
          }
          if (h.status === 'unavailable') expect(h.rateLimitedUntil).not.toBeNull();
          if (opts.disableCooling) expect(h.status).not.toBe('unavailable');
        }
      }),
      { numRuns: 100 },
    );
  });
});
