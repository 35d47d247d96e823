import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  lockoutReprobeDue,
  reprobeDue,
  reprobeFailed,
} from '../../src/main/engine/resilience/health';
import {
  decideQuotaWait,
  type Obstacle,
  QuotaWaitRoom,
  toRelease,
} from '../../src/main/engine/resilience/quota-wait';
import type { ConnectionHealth } from '../../src/main/engine/store/state-records';

const quota = (retryAfterMs: number, subject = 'c1'): Obstacle => ({
  reason: 'unavailable',
  retryAfterMs,
  errorType: 'quota_exhausted',
  subject,
});

describe('decideQuotaWait', () => {
  const base = { maxWaitMs: 300_000, waitingSince: null, now: 1_000 };

  it('waits for the earliest end when every obstacle ends by itself within the bound', () => {
    const d = decideQuotaWait({
      ...base,
      obstacles: [
        quota(20_000, 'a'),
        { reason: 'model_lockout', retryAfterMs: 5_000, errorType: null, subject: 'b' },
        { reason: 'circuit_open', retryAfterMs: 9_000, errorType: null, subject: 'p' },
      ],
    });
    expect(d).toMatchObject({ kind: 'wait', waitMs: 5_000, obstacle: { subject: 'b' } });
  });

  it('refuses with the real earliest reset beyond the bound, and counts the bound from the first wait', () => {
    expect(decideQuotaWait({ ...base, obstacles: [quota(3_600_000)] })).toMatchObject({
      kind: 'refuse',
      retryAfterMs: 3_600_000,
    });
    expect(
      decideQuotaWait({ ...base, waitingSince: 1_000 - 290_000, obstacles: [quota(20_000)] }),
    ).toMatchObject({ kind: 'refuse', retryAfterMs: 20_000 });
  });

  it('does not decide when anything does not end by itself, or when switched off', () => {
    const terminal: Obstacle = {
      reason: 'unavailable',
      retryAfterMs: null,
      errorType: null,
      subject: 'x',
    };
    const auth: Obstacle = {
      reason: 'unavailable',
      retryAfterMs: 1_000,
      errorType: 'auth_error',
      subject: 'x',
    };
    const free: Obstacle = { reason: 'open', retryAfterMs: null, errorType: null, subject: '' };
    for (const other of [terminal, auth, free])
      expect(decideQuotaWait({ ...base, obstacles: [quota(1_000), other] }).kind).toBe('none');
    expect(decideQuotaWait({ ...base, obstacles: [] }).kind).toBe('none');
    expect(decideQuotaWait({ ...base, maxWaitMs: 0, obstacles: [quota(1_000)] }).kind).toBe('none');
  });

  it('never waits past the bound, and waits exactly for the earliest end otherwise (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (ends, maxWaitMs, already) => {
          const now = 5_000_000;
          const d = decideQuotaWait({
            maxWaitMs,
            waitingSince: now - already,
            now,
            obstacles: ends.map((e) => quota(e)),
          });
          const earliest = Math.min(...ends);
          if (d.kind === 'wait') {
            expect(d.waitMs).toBe(earliest);
            expect(now + d.waitMs).toBeLessThanOrEqual(now - already + maxWaitMs);
          } else {
            expect(d).toMatchObject({ kind: 'refuse', retryAfterMs: earliest });
            expect(now + earliest).toBeGreaterThan(now - already + maxWaitMs);
          }
        },
      ),
    );
  });
});

describe('toRelease (the trickle)', () => {
  it('releases only due waiters, in arrival order, within the burst (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ arrival: fc.nat(1000), until: fc.nat(100) }), { maxLength: 30 }),
        fc.nat(6),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(100),
        (waiters, released, burst, now) => {
          const out = toRelease(waiters, released, burst, now);
          expect(out.length).toBeLessThanOrEqual(Math.max(0, burst - released));
          expect(out.every((w) => w.until <= now)).toBe(true);
          for (let i = 1; i < out.length; i++)
            expect(out[i]!.arrival).toBeGreaterThanOrEqual(out[i - 1]!.arrival);
          // No due waiter that came earlier is passed over for a later one.
          const last = out.at(-1);
          if (last && out.length === burst - released) {
            const skipped = waiters.filter((w) => w.until <= now && !out.includes(w));
            expect(skipped.every((w) => w.arrival >= last.arrival)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('QuotaWaitRoom', () => {
  it('lets at most the burst go at once and the next as each gives its place back', async () => {
    let now = 0;
    const room = new QuotaWaitRoom(() => now, 2, 60_000);
    const view = {
      model: 'm',
      key: null,
      since: 0,
      until: 1,
      reason: 'quota_exhausted',
      subject: 'c',
    };
    const ws = [1, 2, 3].map(() => room.enter(view));
    expect(room.views().map((v) => v.id)).toEqual(['qw-0', 'qw-1', 'qw-2']);
    now = 1;
    await new Promise((r) => setTimeout(r, 5));
    const first = await ws[0]!.released;
    await ws[1]!.released;
    expect(room.size).toBe(1);
    first!.end();
    first!.end();
    expect((await ws[2]!.released) !== null).toBe(true);
    expect(room.size).toBe(0);
  });

  it('drops a waiter that leaves, at once', async () => {
    const room = new QuotaWaitRoom(() => 0);
    const w = room.enter({
      model: 'm',
      key: null,
      since: 0,
      until: 60_000,
      reason: 'r',
      subject: 'c',
    });
    w.leave();
    expect(room.views()).toEqual([]);
    expect(await w.released).toBeNull();
  });
});

describe('re-probing long cooldowns', () => {
  const cooled = (setAt: number, until: number): ConnectionHealth => ({
    status: 'unavailable',
    rateLimitedUntil: until,
    backoffLevel: 1,
    lastError: 'quota',
    lastErrorType: 'quota_exhausted',
    errorCode: '429',
    cooldownSetAt: setAt,
    refusalStreak: 0,
    authFailures: 0,
  });

  it('is due once the interval passed, only for a cooldown longer than it', () => {
    const h = cooled(0, 86_400_000);
    expect(reprobeDue(h, 1_800_000, 1_799_999)).toBe(false);
    expect(reprobeDue(h, 1_800_000, 1_800_000)).toBe(true);
    expect(reprobeDue(cooled(0, 60_000), 1_800_000, 1_800_000)).toBe(false);
    expect(reprobeDue(h, 0, 5_000_000)).toBe(false);
  });

  it('a failed probe keeps the end and restarts the interval (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.nat(100_000_000),
        (interval, until, now) => {
          const h = cooled(0, until);
          const after = reprobeFailed(h, now);
          expect(after.rateLimitedUntil).toBe(until);
          if (until > now) {
            expect(after.cooldownSetAt).toBe(now);
            expect(reprobeDue(after, interval, now + interval - 1)).toBe(false);
          }
        },
      ),
    );
  });

  it('a model lockout is due the same way, and one kept before its start was recorded never is', () => {
    const lock = {
      key: 'p:c:m',
      provider: 'p',
      connection: 'c',
      model: 'm',
      subject: 'm',
      scope: 'model' as const,
      reason: 'not_found',
      failureCount: 1,
      expiresAt: 86_400_000,
      lockedAt: 0,
    };
    expect(lockoutReprobeDue(lock, 1_800_000, 1_799_999)).toBe(false);
    expect(lockoutReprobeDue(lock, 1_800_000, 1_800_000)).toBe(true);
    expect(lockoutReprobeDue({ ...lock, expiresAt: 60_000 }, 1_800_000, 1_800_000)).toBe(false);
    expect(lockoutReprobeDue({ ...lock, lockedAt: null }, 1_800_000, 5_000_000)).toBe(false);
    expect(lockoutReprobeDue({ ...lock, lockedAt: undefined }, 1_800_000, 5_000_000)).toBe(false);
    expect(lockoutReprobeDue(lock, 0, 5_000_000)).toBe(false);
  });
});
