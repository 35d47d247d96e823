import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProviderCooldown } from '../../src/main/engine/resilience/health/provider-cooldown';
import {
  DEFAULT_PROVIDER_COOLDOWN,
  type ProviderCooldownProfile,
} from '../../src/main/engine/settings/resilience-defaults';

const T0 = 1_700_000_000_000;
const MIN = 60_000;

describe('§1 optional windowed provider cooldown: defaults oauth 10 in 15 min → 5 min, api_key 15 in 30 min → 10 min', () => {
  it('the defaults', () => {
    expect(DEFAULT_PROVIDER_COOLDOWN.oauth).toEqual({
      providerFailureThreshold: 10,
      providerFailureWindowMs: 15 * MIN,
      providerCooldownMs: 5 * MIN,
    });
    expect(DEFAULT_PROVIDER_COOLDOWN.api_key).toEqual({
      providerFailureThreshold: 15,
      providerFailureWindowMs: 30 * MIN,
      providerCooldownMs: 10 * MIN,
    });
  });

  for (const cls of ['oauth', 'api_key'] as const) {
    const p = DEFAULT_PROVIDER_COOLDOWN[cls];
    it(`${cls}: not cooling at all below ${p.providerFailureThreshold} failures; cools at the threshold`, () => {
      const c = new ProviderCooldown();
      for (let i = 0; i < p.providerFailureThreshold - 1; i++) {
        expect(c.recordFailure(T0 + i * 1000, p)).toBeNull();
        expect(c.cooling(T0 + i * 1000)).toBe(false);
        expect(c.retryAfterMs(T0 + i * 1000)).toBe(0);
      }
      const at = T0 + p.providerFailureThreshold * 1000;
      expect(c.recordFailure(at, p)).toBe(at + p.providerCooldownMs);
      expect(c.cooling(at)).toBe(true);
      expect(c.retryAfterMs(at + 1000)).toBe(p.providerCooldownMs - 1000);
    });
  }
});

describe('§1 a provider is put in cooldown only when it reaches N failures inside a time window', () => {
  const p: ProviderCooldownProfile = {
    providerFailureThreshold: 3,
    providerFailureWindowMs: 10_000,
    providerCooldownMs: 60_000,
  };

  it('failures spread wider than the window never cool', () => {
    const c = new ProviderCooldown();
    for (let i = 0; i < 20; i++) {
      expect(c.recordFailure(T0 + i * 5_000, p)).toBeNull();
    }
    expect(c.cooling(T0 + 100_000)).toBe(false);
  });

  it('a failure exactly one window old no longer counts', () => {
    const c = new ProviderCooldown();
    c.recordFailure(T0, p);
    c.recordFailure(T0 + 1, p);
    expect(c.recordFailure(T0 + 10_000, p)).toBeNull(); // T0 dropped: 2 in the window
    expect(c.recordFailure(T0 + 10_000, p)).toBe(T0 + 10_000 + 60_000); // 3 in the window
  });

  it('the cooldown ends lazily at its time, and the window starts empty', () => {
    const c = new ProviderCooldown();
    for (let i = 0; i < 3; i++) c.recordFailure(T0, p);
    expect(c.cooling(T0 + 59_999)).toBe(true);
    expect(c.cooling(T0 + 60_000)).toBe(false);
    expect(c.retryAfterMs(T0 + 60_000)).toBe(0);
    expect(c.recordFailure(T0 + 60_001, p)).toBeNull();
  });

  it('failures during a cooldown do not extend it', () => {
    const c = new ProviderCooldown();
    for (let i = 0; i < 3; i++) c.recordFailure(T0, p);
    for (let i = 0; i < 5; i++) expect(c.recordFailure(T0 + 1_000 + i, p)).toBeNull();
    expect(c.retryAfterMs(T0 + 1_000)).toBe(59_000);
  });

  it('a success clears the window', () => {
    const c = new ProviderCooldown();
    c.recordFailure(T0, p);
    c.recordFailure(T0 + 1, p);
    c.recordSuccess();
    expect(c.recordFailure(T0 + 2, p)).toBeNull();
    expect(c.recordFailure(T0 + 3, p)).toBeNull();
    expect(c.recordFailure(T0 + 4, p)).toBe(T0 + 4 + 60_000);
  });

  it('clear() ends a running cooldown (operator reset)', () => {
    const c = new ProviderCooldown();
    for (let i = 0; i < 3; i++) c.recordFailure(T0, p);
    c.clear();
    expect(c.cooling(T0 + 1)).toBe(false);
  });
});

describe('§1 properties of the provider cooldown', () => {
  type Op = { kind: 'fail' | 'success'; at: number };
  const opsArb = fc.array(
    fc.record({
      kind: fc.constantFrom<'fail' | 'success'>('fail', 'fail', 'fail', 'fail', 'success'),
      at: fc.nat(30_000),
    }),
    { maxLength: 80, size: 'max' },
  );
  const profileArb = fc.record({
    providerFailureThreshold: fc.integer({ min: 1, max: 6 }),
    providerFailureWindowMs: fc.integer({ min: 1, max: 20_000 }),
    providerCooldownMs: fc.integer({ min: 1, max: 50_000 }),
  });

  it('never cools below the threshold within a window', () => {
    fc.assert(
      fc.property(profileArb, opsArb, (p, raw) => {
        const c = new ProviderCooldown();
        let now = T0;
        // Failures that may still count: since the last success or cooldown start.
        let counted: number[] = [];
        const ops: Op[] = raw;
        for (const op of ops) {
          now += op.at;
          if (op.kind === 'success') {
            c.recordSuccess();
            counted = [];
            continue;
          }
          const wasCooling = c.cooling(now);
          counted.push(now);
          const until = c.recordFailure(now, p);
          if (until !== null) {
            expect(wasCooling).toBe(false);
            const inWindow = counted.filter((t) => t > now - p.providerFailureWindowMs);
            expect(inWindow.length).toBeGreaterThanOrEqual(p.providerFailureThreshold);
            expect(until).toBe(now + p.providerCooldownMs);
            counted = [];
          }
          const left = c.retryAfterMs(now);
          expect(left).toBeGreaterThanOrEqual(0);
          expect(left).toBeLessThanOrEqual(p.providerCooldownMs);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('N failures at one instant while not cooling always cool', () => {
    fc.assert(
      fc.property(profileArb, (p) => {
        const c = new ProviderCooldown();
        let until: number | null = null;
        for (let i = 0; i < p.providerFailureThreshold; i++) until = c.recordFailure(T0, p);
        expect(until).toBe(T0 + p.providerCooldownMs);
      }),
    );
  });
});
