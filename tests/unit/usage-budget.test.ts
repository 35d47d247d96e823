import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costUsd, sampleOf } from '../../src/main/engine/usage/accounting';
import {
  crossed,
  decideBudget,
  emptyCounters,
  type KeyCounters,
  windowsAt,
} from '../../src/main/engine/usage/budget';
import { emptyUsage } from '../../src/main/engine/usage/usage';

const T = Date.UTC(2026, 11, 1, 10, 30, 15); // 1 Dec 2026, 10:30:15 UTC

function counters(over: Partial<KeyCounters> = {}, now = T): KeyCounters {
  return { ...emptyCounters(now), ...over };
}

describe('budget windows are calendar windows in UTC', () => {
  it('minute, day and month around a time', () => {
    const w = windowsAt(T);
    expect(w.minuteStart).toBe(Date.UTC(2026, 11, 1, 10, 30));
    expect(w.minuteEnd).toBe(Date.UTC(2026, 11, 1, 10, 31));
    expect(w.dayEnd).toBe(Date.UTC(2026, 11, 2));
    expect(w.monthStart).toBe(Date.UTC(2026, 11, 1));
    expect(w.monthEnd).toBe(Date.UTC(2027, 0, 1));
  });
});

describe('decideBudget', () => {
  it('allows a key without limits or under them', () => {
    expect(decideBudget({}, counters({ requestsThisMinute: 1e6 }), T).kind).toBe('allow');
    expect(
      decideBudget({ requestsPerMinute: 3 }, counters({ requestsThisMinute: 2 }), T).kind,
    ).toBe('allow');
  });

  it('refuses at a limit until its window resets', () => {
    const d = decideBudget({ requestsPerMinute: 3 }, counters({ requestsThisMinute: 3 }), T);
    expect(d).toEqual({
      kind: 'over',
      limit: 'requestsPerMinute',
      used: 3,
      max: 3,
      retryAfterMs: 45_000,
    });
    const day = decideBudget({ usdPerDay: 5 }, counters({ usdToday: 5.01 }), T);
    expect(day).toMatchObject({ limit: 'usdPerDay', retryAfterMs: Date.UTC(2026, 11, 2) - T });
  });

  it('names the limit that resets last when several are hit', () => {
    const d = decideBudget(
      { requestsPerMinute: 1, tokensPerDay: 10, usdPerMonth: 1 },
      counters({ requestsThisMinute: 1, tokensToday: 10, usdThisMonth: 1 }),
      T,
    );
    expect(d).toMatchObject({ kind: 'over', limit: 'usdPerMonth' });
  });

  it('a window that has ended counts from zero again', () => {
    const old = counters(
      { requestsThisMinute: 9, tokensToday: 99, usdThisMonth: 9 },
      T - 86_400_000 * 40,
    );
    expect(
      decideBudget({ requestsPerMinute: 1, tokensPerDay: 1, usdPerMonth: 1 }, old, T).kind,
    ).toBe('allow');
  });

  it('property: refused exactly when some used amount reaches its limit, with a positive wait', () => {
    fc.assert(
      fc.property(
        fc.record({
          rpm: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
          used: fc.integer({ min: 0, max: 200 }),
          usd: fc.option(fc.double({ min: 0.01, max: 10, noNaN: true }), { nil: undefined }),
          spent: fc.double({ min: 0, max: 20, noNaN: true }),
          at: fc.integer({ min: 0, max: 86_400_000 * 400 }),
        }),
        ({ rpm, used, usd, spent, at }) => {
          const now = T + at;
          const limits = {
            ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
            ...(usd !== undefined ? { usdPerDay: usd } : {}),
          };
          const c = counters({ requestsThisMinute: used, usdToday: spent }, now);
          const d = decideBudget(limits, c, now);
          const over = (rpm !== undefined && used >= rpm) || (usd !== undefined && spent >= usd);
          expect(d.kind === 'over').toBe(over);
          if (d.kind === 'over') {
            expect(d.retryAfterMs).toBeGreaterThan(0);
            expect(d.retryAfterMs).toBeLessThanOrEqual(86_400_000);
          }
        },
      ),
    );
  });
});

describe('crossed: the 80 % warning, once per window', () => {
  it('fires when use goes from under 80 % to at or over it, and not again', () => {
    const limits = { tokensPerDay: 100 };
    const a = counters({ tokensToday: 70 });
    const b = counters({ tokensToday: 85 });
    const c = counters({ tokensToday: 95 });
    expect(crossed(limits, a, b, T)).toEqual([
      { limit: 'tokensPerDay', used: 85, max: 100, resetsAt: Date.UTC(2026, 11, 2) },
    ]);
    expect(crossed(limits, b, c, T)).toEqual([]);
  });

  it('a new window can warn again', () => {
    const yesterday = counters({ tokensToday: 90 }, T - 86_400_000);
    expect(
      crossed({ tokensPerDay: 100 }, yesterday, counters({ tokensToday: 80 }), T),
    ).toHaveLength(1);
  });
});

describe('cost and samples', () => {
  const price = { input: 3, output: 15, cacheRead: 0.3 };

  it('prices uncached input, cache reads, cache writes (1.25 × input) and output', () => {
    const usd = costUsd(
      {
        inputTokens: 1_000_000,
        outputTokens: 100_000,
        cacheReadTokens: 500_000,
        cacheWriteTokens: 100_000,
        reasoningTokens: 0,
      },
      price,
    );
    // 400k uncached × 3 + 500k × 0.3 + 100k × 3.75 + 100k × 15, per million
    expect(usd).toBeCloseTo(1.2 + 0.15 + 0.375 + 1.5, 12);
  });

  const dims = {
    provider: 'an',
    connection: 'an-1',
    model: 'claude-x',
    combo: '',
    keyName: '',
    session: '',
  };

  it('normalises Anthropic input (cache apart) to all prompt tokens', () => {
    const s = sampleOf(
      {
        at: T,
        dims,
        usage: {
          ...emptyUsage(),
          inputTokens: 10,
          outputTokens: 5,
          cachedTokens: 80,
          cacheWriteTokens: 10,
          cacheApart: true,
        },
        status: 200,
        bytesIn: 1,
        bytesOut: 1,
        countOnly: false,
      },
      () => price,
    );
    expect(s).toMatchObject({
      inputTokens: 100,
      cacheReadTokens: 80,
      cacheWriteTokens: 10,
      estimated: false,
    });
  });

  it('estimates from bytes, marked, only when a success reported nothing; count_tokens costs nothing', () => {
    const base = { at: T, dims, usage: emptyUsage(), bytesIn: 400, bytesOut: 80, countOnly: false };
    expect(sampleOf({ ...base, status: 200 }, () => null)).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      estimated: true,
      costUsd: null,
    });
    expect(sampleOf({ ...base, status: 502 }, () => price)).toMatchObject({
      inputTokens: 0,
      estimated: false,
      error: true,
    });
    const counted = sampleOf(
      { ...base, status: 200, countOnly: true, usage: { ...emptyUsage(), inputTokens: 50 } },
      () => price,
    );
    expect(counted).toMatchObject({ inputTokens: 0, costUsd: 0 });
  });
});
