import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CatalogConnection, CatalogProvider } from '../../src/main/engine/config/catalog';
import type { FailureSettings } from '../../src/main/engine/resilience/derived-settings';
import { HEALTHY } from '../../src/main/engine/resilience/health/connection-cooldown';
import { classify } from '../../src/main/engine/resilience/health/error-rules';
import {
  coolsEgressSiblings,
  decideFailure,
  type FailureOutcome,
  type FailureState,
} from '../../src/main/engine/resilience/health/failure-policy';
import { ModelLockouts } from '../../src/main/engine/resilience/health/model-lockout';
import {
  afterProviderFailure,
  afterProviderSuccess,
  currentCooldown,
  NOT_COOLING,
  ProviderCooldown,
} from '../../src/main/engine/resilience/health/provider-cooldown';
import { DEFAULT_LOCKOUT_SETTINGS } from '../../src/main/engine/settings/resilience-defaults';
import type { LockoutEntry } from '../../src/main/engine/store/state-records';

const T0 = 1_700_000_000_000;

function provider(id: string, connections: string[], disableCooling = false): CatalogProvider {
  const p: CatalogProvider = {
    id,
    format: 'openai',
    baseUrl: 'http://127.0.0.1:9',
    authClass: 'api_key',
    models: ['m'],
    timeouts: {},
    enabled: true,
    connections: [],
  };
  p.connections = connections.map(
    (c): CatalogConnection => ({
      id: c,
      provider: id,
      apiKey: 'k',
      apiKeyEnv: null,
      maxConcurrent: null,
      enabled: true,
      ...(disableCooling ? { options: { disableCooling: true } } : {}),
    }),
  );
  return p;
}

const OA = provider('oa', ['oa-1', 'oa-2']);
const candidate = (p = OA, i = 0) => ({
  target: { label: `${p.id}/m`, provider: p, model: 'm', pinnedConnection: null },
  connection: p.connections[i]!,
});

const SETTINGS: FailureSettings = {
  lockout: DEFAULT_LOCKOUT_SETTINGS,
  providerCooldown: null,
  connectionCooldown: { baseMs: { api_key: 1_000, oauth: 2_000 }, capMs: 60_000 },
};

function state(over: Partial<FailureState> = {}): FailureState {
  return {
    providerCooldown: NOT_COOLING,
    health: () => HEALTHY,
    lockout: () => undefined,
    egressSiblings: [],
    ...over,
  };
}

function upstream(
  status: number,
  bodyText = 'upstream said no',
  c = candidate(),
  probe = false,
): FailureOutcome {
  return {
    kind: 'upstream',
    candidate: c,
    probe,
    classification: classify(
      { provider: c.target.provider.id, status, headers: {}, bodyText },
      [],
      T0,
    ),
    status,
    message: bodyText,
    requestStartedAt: T0 - 100,
  };
}

describe('decideFailure: a network failure', () => {
  const network: FailureOutcome = {
    kind: 'network',
    candidate: candidate(),
    probe: false,
    message: 'ECONNREFUSED',
  };

  it('counts against the breaker and touches nothing else while the provider cooldown is off', () => {
    expect(decideFailure(network, state(), SETTINGS, T0)).toEqual({
      breaker: { kind: 'failure', cause: 'network: ECONNREFUSED' },
      providerCooldown: null,
      lockout: null,
      health: [],
      events: [],
    });
  });

  it('at the window threshold the provider cools and says so', () => {
    const profile = {
      providerFailureThreshold: 1,
      providerFailureWindowMs: 1,
      providerCooldownMs: 5_000,
    };
    const d = decideFailure(network, state(), { ...SETTINGS, providerCooldown: profile }, T0);
    expect(d.providerCooldown).toEqual({ name: 'COOLING', failures: [], until: T0 + 5_000 });
    expect(d.events).toEqual([
      {
        type: 'provider.cooldown',
        at: T0,
        provider: 'oa',
        until: T0 + 5_000,
        cause: 'network: ECONNREFUSED',
      },
    ]);
  });
});

describe('decideFailure: an upstream error', () => {
  it('a 5xx is a breaker failure whose cause names the status and an excerpt', () => {
    const d = decideFailure(upstream(503, 'busy\n\n  now'), state(), SETTINGS, T0);
    expect(d.breaker).toEqual({ kind: 'failure', cause: 'HTTP 503: busy now' });
  });

  it('a 429 cools the connection, not the provider; a probe that got it counts as answered', () => {
    const d = decideFailure(upstream(429, 'slow down', candidate(), true), state(), SETTINGS, T0);
    expect(d.breaker).toEqual({ kind: 'probe_answered' });
    expect(d.health).toHaveLength(1);
    expect(d.health[0]).toMatchObject({
      connection: 'oa-1',
      health: { status: 'unavailable', rateLimitedUntil: T0 + 1_000, backoffLevel: 1 },
    });
    expect(d.events).toEqual([
      {
        type: 'connection.cooldown',
        at: T0,
        provider: 'oa',
        connection: 'oa-1',
        status: 'unavailable',
        until: T0 + 1_000,
        cause: 'HTTP 429: slow down',
      },
    ]);
    expect(decideFailure(upstream(429), state(), SETTINGS, T0).breaker).toBeNull();
  });

  it('with lockout on, a listed status locks the model and announces it', () => {
    const on = { ...SETTINGS, lockout: { ...DEFAULT_LOCKOUT_SETTINGS, enabled: true } };
    const d = decideFailure(upstream(404, 'model not found'), state(), on, T0);
    expect(d.lockout).toMatchObject({ key: 'oa:oa-1:m', scope: 'model', failureCount: 1 });
    expect(d.events.map((e) => e.type)).toContain('lockout.added');
    expect(
      decideFailure(upstream(404, 'model not found'), state(), SETTINGS, T0).lockout,
    ).toBeNull();
  });

  it('a lock reads the previous entry, so a repeat failure is locked longer', () => {
    const on = { ...SETTINGS, lockout: { ...DEFAULT_LOCKOUT_SETTINGS, enabled: true } };
    const first = decideFailure(upstream(404, 'model not found'), state(), on, T0).lockout!;
    const again = decideFailure(
      upstream(404, 'model not found'),
      state({ lockout: (k) => (k === first.key ? first : undefined) }),
      on,
      T0,
    ).lockout!;
    expect(again.failureCount).toBe(2);
  });

  it('where cooling is off for the connection, a cooldown error locks only the model', () => {
    const p = provider('oa', ['oa-1'], true);
    const on = { ...SETTINGS, lockout: { ...DEFAULT_LOCKOUT_SETTINGS, enabled: true } };
    const d = decideFailure(upstream(429, 'slow down', candidate(p)), state(), on, T0);
    expect(d.health).toEqual([]);
    expect(d.lockout).toMatchObject({ provider: 'oa', connection: 'oa-1', model: 'm' });
    const cools = decideFailure(upstream(429, 'slow down'), state(), SETTINGS, T0);
    expect(cools.health.map((h) => h.connection)).toEqual(['oa-1']);
  });

  it('an egress-bucketed error cools the siblings leaving through the same IP', () => {
    const oc = provider('opencode', ['oc-1', 'oc-2']);
    const c = candidate(oc);
    const outcome = upstream(429, 'rate limit', c);
    if (outcome.kind !== 'upstream') throw new Error('unreachable');
    expect(coolsEgressSiblings(c, outcome.classification)).toBe(true);
    const d = decideFailure(
      outcome,
      state({ egressSiblings: [{ connection: oc.connections[1]!, authClass: 'api_key' }] }),
      SETTINGS,
      T0,
    );
    expect(d.health.map((h) => h.connection)).toEqual(['oc-1', 'oc-2']);
    expect(d.events.at(-1)).toMatchObject({
      type: 'connection.cooldown',
      connection: 'oc-2',
      cause: expect.stringContaining('(same egress IP as oc-1)'),
    });
    expect(coolsEgressSiblings(candidate(), outcome.classification)).toBe(false);
  });
});

describe('decideFailure: properties', () => {
  const statusArb = fc.constantFrom(400, 401, 402, 403, 404, 408, 429, 500, 502, 503, 504);
  const settingsArb = fc.record({
    enabled: fc.boolean(),
    threshold: fc.integer({ min: 1, max: 3 }),
    cooling: fc.boolean(),
  });

  it('is pure: the state is left as it was, and the same inputs give the same decision', () => {
    fc.assert(
      fc.property(
        statusArb,
        fc.boolean(),
        settingsArb,
        fc.nat(1_000_000),
        (status, probe, s, dt) => {
          const settings: FailureSettings = {
            ...SETTINGS,
            lockout: { ...DEFAULT_LOCKOUT_SETTINGS, enabled: s.enabled },
            providerCooldown: s.cooling
              ? {
                  providerFailureThreshold: s.threshold,
                  providerFailureWindowMs: 10_000,
                  providerCooldownMs: 5_000,
                }
              : null,
          };
          const before = Object.freeze({ name: 'ACTIVE' as const, failures: Object.freeze([T0]) });
          const st = state({ providerCooldown: before });
          const outcome = upstream(status, 'x', candidate(), probe);
          const a = decideFailure(outcome, st, settings, T0 + dt);
          const b = decideFailure(outcome, st, settings, T0 + dt);
          expect(a).toEqual(b);
          expect(st.providerCooldown).toEqual({ name: 'ACTIVE', failures: [T0] });
        },
      ),
    );
  });

  it('every event is stamped now, and each change it names is in the decision', () => {
    fc.assert(
      fc.property(statusArb, fc.boolean(), fc.boolean(), (status, probe, enabled) => {
        const settings = { ...SETTINGS, lockout: { ...DEFAULT_LOCKOUT_SETTINGS, enabled } };
        const d = decideFailure(upstream(status, 'x', candidate(), probe), state(), settings, T0);
        for (const e of d.events) {
          expect(e.at).toBe(T0);
          if (e.type === 'lockout.added') expect(d.lockout).not.toBeNull();
          if (e.type === 'connection.cooldown' || e.type === 'connection.terminal')
            expect(d.health.map((h) => h.connection)).toContain(e.connection);
        }
        expect(d.events.filter((e) => e.type === 'lockout.added')).toHaveLength(d.lockout ? 1 : 0);
        // The breaker hears of a provider failure, or of an answered probe, or of nothing.
        if (d.breaker?.kind === 'probe_answered') expect(probe).toBe(true);
      }),
    );
  });
});

describe('provider cooldown as a state union, ended by the read that notices it', () => {
  const p = {
    providerFailureThreshold: 2,
    providerFailureWindowMs: 10_000,
    providerCooldownMs: 5_000,
  };

  it('pure transitions: counting, cooling, lazily over, success clears the window only', () => {
    const one = afterProviderFailure(NOT_COOLING, T0, p);
    expect(one).toEqual({ state: { name: 'ACTIVE', failures: [T0] }, until: null });
    const two = afterProviderFailure(one.state, T0 + 1, p);
    expect(two).toEqual({
      state: { name: 'COOLING', failures: [], until: T0 + 5_001 },
      until: T0 + 5_001,
    });
    const during = afterProviderFailure(two.state, T0 + 2, p).state;
    expect(during).toEqual({ name: 'COOLING', failures: [T0 + 2], until: T0 + 5_001 });
    expect(afterProviderSuccess(during)).toEqual({
      name: 'COOLING',
      failures: [],
      until: T0 + 5_001,
    });
    expect(currentCooldown(during, T0 + 5_001)).toEqual({ name: 'ACTIVE', failures: [T0 + 2] });
    expect(currentCooldown(NOT_COOLING, T0)).toBe(NOT_COOLING);
  });

  it('the end of a cooldown is reported once, at the read that finds it over', () => {
    const ended: number[] = [];
    const c = new ProviderCooldown((at) => ended.push(at));
    c.recordFailure(T0, p);
    c.recordFailure(T0, p);
    expect(c.until(T0 + 4_999)).toBe(T0 + 5_000);
    expect(ended).toEqual([]);
    expect(c.cooling(T0 + 7_000)).toBe(false);
    expect(c.retryAfterMs(T0 + 8_000)).toBe(0);
    expect(ended).toEqual([T0 + 7_000]);
  });

  it('an operator clear is not an expiry', () => {
    const ended: number[] = [];
    const c = new ProviderCooldown((at) => ended.push(at));
    c.recordFailure(T0, p);
    c.recordFailure(T0, p);
    c.clear();
    expect(c.cooling(T0 + 10_000)).toBe(false);
    expect(ended).toEqual([]);
  });
});

describe('model lockouts as a state union: a lock lapses on the read that notices it', () => {
  const ON = { ...DEFAULT_LOCKOUT_SETTINGS, enabled: true };
  const failure = {
    provider: 'oa',
    connection: 'oa-1',
    model: 'm',
    status: 503,
    reason: 'server_error',
    families: {},
  };

  it('reports the lapse once, keeps the count, and locks anew on the next failure', () => {
    const lapsed: [string, number][] = [];
    const l = new ModelLockouts([], { now: T0, onLapsed: (e, at) => lapsed.push([e.key, at]) });
    const e = l.recordFailure(failure, ON, T0)!;
    expect(l.check('oa', 'oa-1', 'm', {}, e.expiresAt - 1)).toEqual(e);
    expect(lapsed).toEqual([]);
    expect(l.check('oa', 'oa-1', 'm', {}, e.expiresAt)).toBeNull();
    expect(l.active(e.expiresAt + 1)).toEqual([]);
    expect(lapsed).toEqual([[e.key, e.expiresAt]]);
    expect(l.get(e.key)?.failureCount).toBe(1);
    const again = l.recordFailure(failure, ON, e.expiresAt + 2)!;
    expect(again.failureCount).toBe(2);
    l.active(again.expiresAt);
    expect(lapsed).toHaveLength(2);
  });

  it('entries restored already past their expiry come back lapsed, without a report', () => {
    const lapsed: LockoutEntry[] = [];
    const stale: LockoutEntry = {
      key: 'oa:oa-1:exact:m',
      provider: 'oa',
      connection: 'oa-1',
      model: 'm',
      subject: 'm',
      scope: 'exact',
      reason: 'server_error',
      failureCount: 3,
      expiresAt: T0 - 1,
    };
    const l = new ModelLockouts([stale], { now: T0, onLapsed: (e) => lapsed.push(e) });
    expect(l.active(T0)).toEqual([]);
    expect(lapsed).toEqual([]);
    expect(l.all()).toEqual([stale]);
  });
});
