import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  familyOf,
  type LockoutFailure,
  lockoutDuration,
  lockoutKey,
  lockoutView,
  MAX_LOCKOUT_ENTRIES,
  ModelLockouts,
  scopeForStatus,
} from '../../src/main/engine/resilience/health/model-lockout';
import {
  DEFAULT_LOCKOUT_SETTINGS,
  type LockoutSettings,
} from '../../src/main/engine/settings/resilience-defaults';

const T0 = 1_700_000_000_000;
const ON: LockoutSettings = { ...DEFAULT_LOCKOUT_SETTINGS, enabled: true };
const FAMILIES = { 'gpt-5': ['gpt-5*'], claude: ['claude-*-4', 'claude-opus.x'] };

function failure(over: Partial<LockoutFailure> = {}): LockoutFailure {
  return {
    provider: 'openai',
    connection: 'key1',
    model: 'gpt-5-mini',
    status: 503,
    reason: 'server_error',
    families: FAMILIES,
    ...over,
  };
}

describe('§3 settings: off by default; errorCodes [403, 404, 429, 502, 503, 504]; base 120 s; max 30 min; 10 steps; exponential', () => {
  it('the defaults', () => {
    expect(DEFAULT_LOCKOUT_SETTINGS).toEqual({
      enabled: false,
      errorCodes: [403, 404, 429, 502, 503, 504],
      baseCooldownMs: 120_000,
      maxCooldownMs: 1_800_000,
      maxBackoffSteps: 10,
      useExponentialBackoff: true,
    });
  });

  it('off by default: a listed status locks nothing', () => {
    const l = new ModelLockouts();
    expect(l.recordFailure(failure({ status: 429 }), DEFAULT_LOCKOUT_SETTINGS, T0)).toBeNull();
    expect(l.all()).toEqual([]);
  });

  it('only statuses in errorCodes create lockouts: under the defaults 402 and 500 never lock', () => {
    const l = new ModelLockouts();
    for (const status of [400, 401, 402, 408, 409, 500, 501]) {
      expect(l.recordFailure(failure({ status }), ON, T0)).toBeNull();
    }
    expect(l.all()).toEqual([]);
    for (const status of [403, 404, 429, 502, 503, 504]) {
      expect(l.recordFailure(failure({ status }), ON, T0)).not.toBeNull();
    }
  });

  it('a custom errorCodes list is honoured', () => {
    const l = new ModelLockouts();
    const s = { ...ON, errorCodes: [500] };
    expect(l.recordFailure(failure({ status: 500 }), s, T0)).not.toBeNull();
    expect(l.recordFailure(failure({ status: 503 }), s, T0)).toBeNull();
  });

  it('an explicit scope or cooldown (a rule) locks whatever the status and even when lockout is off', () => {
    const l = new ModelLockouts();
    const a = l.recordFailure(
      failure({ status: 400, scope: 'model' }),
      DEFAULT_LOCKOUT_SETTINGS,
      T0,
    );
    expect(a).toMatchObject({ scope: 'model', expiresAt: T0 + 120_000 });
    const b = l.recordFailure(
      failure({ status: 403, model: 'o3', cooldownMs: 5_000 }),
      DEFAULT_LOCKOUT_SETTINGS,
      T0,
    );
    expect(b).toMatchObject({ scope: 'family', subject: 'o3', expiresAt: T0 + 5_000 });
  });
});

describe('§3 duration for the n-th failure: useExponentialBackoff ? min(max, base × 2^min(n−1, maxBackoffSteps)) : base', () => {
  it('120 s, 240 s, 480 s, 960 s, then the 30 min cap', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => lockoutDuration(n, DEFAULT_LOCKOUT_SETTINGS))).toEqual(
      [120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000],
    );
  });

  it('maxBackoffSteps bounds the exponent', () => {
    const s = {
      ...DEFAULT_LOCKOUT_SETTINGS,
      baseCooldownMs: 1_000,
      maxCooldownMs: 10 ** 9,
      maxBackoffSteps: 3,
    };
    expect([1, 2, 3, 4, 5, 100].map((n) => lockoutDuration(n, s))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
    const zero = { ...s, maxBackoffSteps: 0 };
    expect(lockoutDuration(7, zero)).toBe(1_000);
  });

  it('useExponentialBackoff false: always base', () => {
    const s = { ...DEFAULT_LOCKOUT_SETTINGS, useExponentialBackoff: false };
    expect([1, 2, 10].map((n) => lockoutDuration(n, s))).toEqual([120_000, 120_000, 120_000]);
  });

  it('the entry expires after the n-th duration', () => {
    const l = new ModelLockouts();
    let now = T0;
    const expected = [120_000, 240_000, 480_000];
    for (const d of expected) {
      const e = l.recordFailure(failure(), ON, now)!;
      expect(e.expiresAt - now).toBe(d);
      now = e.expiresAt; // after expiry: the count is kept, so the next is longer
    }
  });

  it('a declared cooldown is capped by maxCooldownMs (6 h → 30 min)', () => {
    const l = new ModelLockouts();
    const e = l.recordFailure(
      failure({ status: 403, scope: 'model', cooldownMs: 6 * 3_600_000 }),
      ON,
      T0,
    )!;
    expect(e.expiresAt).toBe(T0 + 1_800_000);
    const small = { ...ON, maxCooldownMs: 7 * 3_600_000 };
    const f = new ModelLockouts().recordFailure(
      failure({ scope: 'model', cooldownMs: 6 * 3_600_000 }),
      small,
      T0,
    )!;
    expect(f.expiresAt).toBe(T0 + 6 * 3_600_000);
  });
});

describe('§3 which key gets locked depends on the status', () => {
  it('429, 403, 402 lock the quota family; 404 the bare model; anything else the exact triple', () => {
    expect(scopeForStatus(429)).toBe('family');
    expect(scopeForStatus(403)).toBe('family');
    expect(scopeForStatus(402)).toBe('family');
    expect(scopeForStatus(404)).toBe('model');
    for (const s of [500, 502, 503, 504, 408, 400]) expect(scopeForStatus(s)).toBe('exact');
  });

  it('keys: quota family `provider:connection:family`, model `provider:connection:model`, exact `provider:connection:exact:model`', () => {
    expect(lockoutKey('openai', 'key1', 'family', 'gpt-5')).toBe('openai:key1:gpt-5');
    expect(lockoutKey('openai', 'key1', 'model', 'gpt-5-mini')).toBe('openai:key1:gpt-5-mini');
    expect(lockoutKey('openai', 'key1', 'exact', 'gpt-5-mini')).toBe(
      'openai:key1:exact:gpt-5-mini',
    );
  });

  it('a 429 on one member of a family locks every member of it on that connection only', () => {
    const l = new ModelLockouts();
    const e = l.recordFailure(failure({ status: 429, reason: 'rate_limit_exceeded' }), ON, T0)!;
    expect(e).toMatchObject({
      key: 'openai:key1:gpt-5',
      scope: 'family',
      subject: 'gpt-5',
      model: 'gpt-5-mini',
    });
    for (const m of ['gpt-5', 'gpt-5-mini', 'gpt-5.1-codex']) {
      expect(l.check('openai', 'key1', m, FAMILIES, T0 + 1)?.key).toBe('openai:key1:gpt-5');
    }
    expect(l.check('openai', 'key1', 'gpt-4o', FAMILIES, T0 + 1)).toBeNull();
    expect(l.check('openai', 'key2', 'gpt-5-mini', FAMILIES, T0 + 1)).toBeNull();
    expect(l.check('azure', 'key1', 'gpt-5-mini', FAMILIES, T0 + 1)).toBeNull();
  });

  it('by default a model is its own family: a 429 and a 404 on it share one key', () => {
    const l = new ModelLockouts();
    const a = l.recordFailure(failure({ model: 'o3', status: 429, families: {} }), ON, T0)!;
    const b = l.recordFailure(failure({ model: 'o3', status: 404, families: {} }), ON, T0 + 1)!;
    expect(a.key).toBe('openai:key1:o3');
    expect(b.key).toBe('openai:key1:o3');
    expect(b.failureCount).toBe(2);
    expect(l.all()).toHaveLength(1);
  });

  it('a 404 locks the bare model, not its family siblings', () => {
    const l = new ModelLockouts();
    const e = l.recordFailure(failure({ status: 404, reason: 'model_not_found' }), ON, T0)!;
    expect(e).toMatchObject({
      key: 'openai:key1:gpt-5-mini',
      scope: 'model',
      subject: 'gpt-5-mini',
    });
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, T0)).not.toBeNull();
    expect(l.check('openai', 'key1', 'gpt-5', FAMILIES, T0)).toBeNull();
  });

  it('a 5xx locks only the exact provider/connection/model', () => {
    const l = new ModelLockouts();
    const e = l.recordFailure(failure({ status: 502 }), ON, T0)!;
    expect(e).toMatchObject({ key: 'openai:key1:exact:gpt-5-mini', scope: 'exact' });
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, T0)).toEqual(e);
    expect(l.check('openai', 'key1', 'gpt-5', FAMILIES, T0)).toBeNull();
  });

  it('a caller that passes an explicit scope wins', () => {
    const l = new ModelLockouts();
    expect(l.recordFailure(failure({ status: 429, scope: 'exact' }), ON, T0)!.key).toBe(
      'openai:key1:exact:gpt-5-mini',
    );
    expect(l.recordFailure(failure({ status: 503, scope: 'family' }), ON, T0)!.key).toBe(
      'openai:key1:gpt-5',
    );
    expect(l.recordFailure(failure({ status: 429, scope: 'model' }), ON, T0)!.key).toBe(
      'openai:key1:gpt-5-mini',
    );
  });

  it('check() returns the covering entry that expires last', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ status: 502 }), ON, T0); // exact, 120 s
    const fam = l.recordFailure(failure({ status: 429, model: 'gpt-5' }), ON, T0 + 60_000)!; // family, 120 s from +60
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, T0 + 1)).toEqual(fam);
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, T0 + 180_000)).toBeNull();
  });
});

describe('§3 quota families: a provider may declare families of models that share quota', () => {
  it('`*` matches any run of characters; the first matching family wins; otherwise the model itself', () => {
    expect(familyOf('gpt-5', FAMILIES)).toBe('gpt-5');
    expect(familyOf('gpt-5-codex', FAMILIES)).toBe('gpt-5');
    expect(familyOf('gpt-4o', FAMILIES)).toBe('gpt-4o');
    expect(familyOf('claude-sonnet-4', FAMILIES)).toBe('claude');
    expect(familyOf('claude-sonnet-4-5', FAMILIES)).toBe('claude-sonnet-4-5'); // anchored at both ends
    expect(familyOf('claude-sonnet-3', FAMILIES)).toBe('claude-sonnet-3');
    expect(familyOf('anything', {})).toBe('anything');
    expect(familyOf('x', { first: ['*'], second: ['x'] })).toBe('first');
  });

  it('pattern characters other than `*` are literal', () => {
    expect(familyOf('claude-opus.x', FAMILIES)).toBe('claude');
    expect(familyOf('claude-opusXx', FAMILIES)).toBe('claude-opusXx');
    expect(familyOf('a+b', { f: ['a+b'] })).toBe('f');
    expect(familyOf('aab', { f: ['a+b'] })).toBe('aab');
    expect(familyOf('m(1)', { f: ['m(*)'] })).toBe('f');
  });
});

describe('§3 recovery by expiry and by decay: each success halves the failure count (floor); removed at 0', () => {
  it('an entry is active until expiresAt and inactive from then on', () => {
    const l = new ModelLockouts();
    const e = l.recordFailure(failure(), ON, T0)!;
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, e.expiresAt - 1)).toEqual(e);
    expect(l.check('openai', 'key1', 'gpt-5-mini', FAMILIES, e.expiresAt)).toBeNull();
    expect(l.active(e.expiresAt - 1)).toEqual([e]);
    expect(l.active(e.expiresAt)).toEqual([]);
  });

  it('an expired entry keeps its failure count, so a model that fails again soon is locked longer', () => {
    const l = new ModelLockouts();
    for (let i = 0; i < 3; i++) l.recordFailure(failure(), ON, T0);
    const later = T0 + 3_600_000;
    expect(l.active(later)).toEqual([]);
    expect(l.all()[0]!.failureCount).toBe(3);
    const again = l.recordFailure(failure(), ON, later)!;
    expect(again.failureCount).toBe(4);
    expect(again.expiresAt - later).toBe(960_000);
  });

  it('successes halve: 5 → 2 → 1 → removed', () => {
    const l = new ModelLockouts();
    for (let i = 0; i < 5; i++) l.recordFailure(failure({ status: 429 }), ON, T0);
    expect(l.recordSuccess('openai', 'key1', 'gpt-5-mini', FAMILIES)).toEqual([]);
    expect(l.all()[0]!.failureCount).toBe(2);
    l.recordSuccess('openai', 'key1', 'gpt-5-mini', FAMILIES);
    expect(l.all()[0]!.failureCount).toBe(1);
    const removed = l.recordSuccess('openai', 'key1', 'gpt-5-mini', FAMILIES);
    expect(removed.map((e) => e.key)).toEqual(['openai:key1:gpt-5']);
    expect(l.all()).toEqual([]);
  });

  it('a success of one family member decays the family entry; a model that is its own family decays once', () => {
    const l = new ModelLockouts();
    for (let i = 0; i < 4; i++)
      l.recordFailure(failure({ model: 'o3', status: 429, families: {} }), ON, T0);
    l.recordSuccess('openai', 'key1', 'o3', {});
    expect(l.all()[0]!.failureCount).toBe(2);
  });

  it('a success decays every scope covering the triple, and only those', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ status: 429 }), ON, T0); // family gpt-5
    l.recordFailure(failure({ status: 404 }), ON, T0); // model gpt-5-mini
    l.recordFailure(failure({ status: 503 }), ON, T0); // exact gpt-5-mini
    l.recordFailure(failure({ status: 503, model: 'gpt-4o' }), ON, T0);
    l.recordFailure(failure({ status: 503, connection: 'key2' }), ON, T0);
    const removed = l.recordSuccess('openai', 'key1', 'gpt-5-mini', FAMILIES);
    expect(removed.map((e) => e.key).sort()).toEqual([
      'openai:key1:exact:gpt-5-mini',
      'openai:key1:gpt-5',
      'openai:key1:gpt-5-mini',
    ]);
    expect(
      l
        .all()
        .map((e) => e.key)
        .sort(),
    ).toEqual(['openai:key1:exact:gpt-4o', 'openai:key2:exact:gpt-5-mini']);
  });
});

describe('§3 failures during a lockout increment the count and extend the cooldown', () => {
  it('the count climbs and the expiry moves out', () => {
    const l = new ModelLockouts();
    const a = l.recordFailure(failure(), ON, T0)!;
    const b = l.recordFailure(failure(), ON, T0 + 10_000)!;
    expect(b.failureCount).toBe(2);
    expect(b.expiresAt).toBe(T0 + 10_000 + 240_000);
    expect(b.expiresAt).toBeGreaterThan(a.expiresAt);
    expect(l.all()).toHaveLength(1);
  });

  it('a shorter derived duration never shortens a longer declared lockout', () => {
    const l = new ModelLockouts();
    const declared = l.recordFailure(
      failure({ status: 404, scope: 'model', cooldownMs: 6 * 3_600_000 }),
      ON,
      T0,
    )!;
    expect(declared.expiresAt).toBe(T0 + 1_800_000);
    const next = l.recordFailure(failure({ status: 404 }), ON, T0 + 1_000)!;
    expect(next.failureCount).toBe(2);
    expect(next.expiresAt).toBeGreaterThanOrEqual(declared.expiresAt);
  });

  it('the reason is the latest failure’s', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ reason: 'a' }), ON, T0);
    expect(l.recordFailure(failure({ reason: 'b' }), ON, T0)!.reason).toBe('b');
  });
});

describe('§3 persisted; API lists active lockouts and re-enables one', () => {
  it('entries round-trip through the constructor', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ status: 429 }), ON, T0);
    l.recordFailure(failure({ status: 503, model: 'gpt-4o' }), ON, T0);
    const saved = JSON.parse(JSON.stringify(l.all()));
    const r = new ModelLockouts(saved);
    expect(r.all()).toEqual(l.all());
    expect(r.check('openai', 'key1', 'gpt-5', FAMILIES, T0 + 1)).toEqual(
      l.check('openai', 'key1', 'gpt-5', FAMILIES, T0 + 1),
    );
    expect(r.recordFailure(failure({ status: 429 }), ON, T0)!.failureCount).toBe(2);
  });

  it('clear() re-enables a model in every scope of that provider/connection, by model or family name', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ status: 429 }), ON, T0);
    l.recordFailure(failure({ status: 503 }), ON, T0);
    l.recordFailure(failure({ status: 503, connection: 'key2' }), ON, T0);
    expect(l.clear('openai', 'key1', 'gpt-5-mini')).toHaveLength(2);
    expect(l.all().map((e) => e.connection)).toEqual(['key2']);
    l.recordFailure(failure({ status: 429 }), ON, T0);
    expect(l.clear('openai', 'key1', 'gpt-5').map((e) => e.key)).toEqual(['openai:key1:gpt-5']);
  });

  it('clearAll() with a filter', () => {
    const l = new ModelLockouts();
    l.recordFailure(failure({ status: 503 }), ON, T0);
    l.recordFailure(failure({ status: 503, connection: 'key2' }), ON, T0);
    expect(l.clearAll((e) => e.connection === 'key2')).toHaveLength(1);
    expect(l.clearAll()).toHaveLength(1);
    expect(l.all()).toEqual([]);
  });

  it('the view names provider, connection, model (the family for a family lock), scope, reason, count, expiresAt', () => {
    const l = new ModelLockouts();
    const fam = l.recordFailure(failure({ status: 429, reason: 'quota_exhausted' }), ON, T0)!;
    expect(lockoutView(fam)).toEqual({
      provider: 'openai',
      connection: 'key1',
      model: 'gpt-5',
      scope: 'family',
      reason: 'quota_exhausted',
      failureCount: 1,
      expiresAt: T0 + 120_000,
    });
    const exact = l.recordFailure(failure({ status: 503 }), ON, T0)!;
    expect(lockoutView(exact).model).toBe('gpt-5-mini');
  });
});

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

const MODELS = ['gpt-5', 'gpt-5-mini', 'o3', 'claude-sonnet-4'];
type Op =
  | {
      kind: 'fail';
      model: string;
      connection: string;
      status: number;
      explicit: 'none' | 'scope' | 'cooldown';
    }
  | { kind: 'success'; model: string; connection: string }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('fail' as const),
    model: fc.constantFrom(...MODELS),
    connection: fc.constantFrom('k1', 'k2'),
    status: fc.constantFrom(400, 402, 403, 404, 429, 500, 502, 503),
    explicit: fc.constantFrom('none' as const, 'scope' as const, 'cooldown' as const),
  }),
  fc.record({
    kind: fc.constant('success' as const),
    model: fc.constantFrom(...MODELS),
    connection: fc.constantFrom('k1', 'k2'),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.nat(1_000_000) }),
);

const settingsArb = fc.record({
  enabled: fc.boolean(),
  errorCodes: fc.constant(DEFAULT_LOCKOUT_SETTINGS.errorCodes),
  baseCooldownMs: fc.constantFrom(1_000, 120_000),
  maxCooldownMs: fc.constantFrom(1_800_000, 10_000_000),
  maxBackoffSteps: fc.integer({ min: 0, max: 12 }),
  useExponentialBackoff: fc.boolean(),
});

describe('§3 properties of model lockouts', () => {
  it('failure counts are never negative and no entry exists with count 0; durations stay within [0, max]', () => {
    fc.assert(
      fc.property(settingsArb, fc.array(opArb, { maxLength: 60, size: 'max' }), (settings, ops) => {
        const l = new ModelLockouts();
        let now = T0;
        for (const op of ops) {
          if (op.kind === 'advance') now += op.ms;
          else if (op.kind === 'success') l.recordSuccess('p', op.connection, op.model, FAMILIES);
          else {
            const before = l.check('p', op.connection, op.model, FAMILIES, now);
            const e = l.recordFailure(
              {
                provider: 'p',
                connection: op.connection,
                model: op.model,
                status: op.status,
                reason: 'r',
                families: FAMILIES,
                ...(op.explicit === 'scope' ? { scope: 'model' as const } : {}),
                ...(op.explicit === 'cooldown' ? { cooldownMs: 6 * 3_600_000 } : {}),
              },
              settings,
              now,
            );
            if (e) {
              expect(e.expiresAt - now).toBeGreaterThan(0);
              expect(e.expiresAt - now).toBeLessThanOrEqual(
                Math.max(settings.maxCooldownMs, settings.baseCooldownMs),
              );
              // Covering lockouts never end sooner because of a new failure.
              const after = l.check('p', op.connection, op.model, FAMILIES, now);
              if (before) expect(after!.expiresAt).toBeGreaterThanOrEqual(before.expiresAt);
            }
          }
          const bad = l
            .all()
            .filter((e) => !(Number.isInteger(e.failureCount) && e.failureCount > 0));
          expect(bad).toEqual([]);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('enough successes always remove every entry covering a triple', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 40, size: 'max' }),
        fc.constantFrom(...MODELS),
        (ops, model) => {
          const l = new ModelLockouts();
          let now = T0;
          for (const op of ops) {
            if (op.kind === 'advance') now += op.ms;
            else if (op.kind === 'fail') {
              l.recordFailure(
                {
                  provider: 'p',
                  connection: op.connection,
                  model: op.model,
                  status: op.status,
                  reason: 'r',
                  families: FAMILIES,
                },
                ON,
                now,
              );
            }
          }
          for (let i = 0; i < 8; i++) l.recordSuccess('p', 'k1', model, FAMILIES);
          expect(l.check('p', 'k1', model, FAMILIES, now)).toBeNull();
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('bounded: a client inventing a model per request (issue 35)', () => {
  it('keeps at most MAX_LOCKOUT_ENTRIES, dropping what ended first, lapsed before locked', () => {
    const l = new ModelLockouts();
    // A lock that outlasts the flood, written first.
    const kept = l.recordFailure(failure({ model: 'real', status: 404 }), ON, T0);
    const dropped = [];
    for (let i = 0; i < MAX_LOCKOUT_ENTRIES * 2; i++) {
      // Each invented model 404s once; the clock runs, so the earlier locks lapse first.
      const now = T0 - 3_600_000 + i * 1_000;
      const e = {
        key: `openai:key1:invented-${i}`,
        provider: 'openai',
        connection: 'key1',
        model: `invented-${i}`,
        subject: `invented-${i}`,
        scope: 'model' as const,
        reason: 'not_found',
        failureCount: 1,
        expiresAt: now + 120_000,
      };
      dropped.push(...l.put(e));
      expect(l.size).toBeLessThanOrEqual(MAX_LOCKOUT_ENTRIES);
    }
    expect(l.check('openai', 'key1', 'real', FAMILIES, T0 + 1)).toEqual(kept);
    // The newest invented lock is kept, the oldest went (and was reported, to delete its row).
    expect(l.get(`openai:key1:invented-${MAX_LOCKOUT_ENTRIES * 2 - 1}`)).toBeDefined();
    expect(l.get('openai:key1:invented-0')).toBeUndefined();
    expect(dropped.map((e) => e.key)).toContain('openai:key1:invented-0');
    expect(dropped.length + l.size).toBe(MAX_LOCKOUT_ENTRIES * 2 + 1);
  });
});
