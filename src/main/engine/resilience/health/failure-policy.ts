// The failure policy of RESILIENCE.md §1-3 and §7 as one pure decision: what a failed attempt
// does to the provider's breaker and cooldown, the connection, the model lockouts and the
// connections sharing its egress IP. No I/O and no clock: the resilience manager reads the state,
// passes `now`, and applies what comes back.

import type { AuthClass, EngineEvent, LockoutScope } from '../../../../shared/contract';
import type { CatalogConnection } from '../../config/catalog';
import type { Candidate } from '../../routing/resolve';
import type { ConnectionHealth, LockoutEntry } from '../../store/state-records';
import type { FailureSettings } from '../derived-settings';
import { applyFailure, type ConnectionFailure } from './connection-cooldown';
import { type Classification, egressFamilyOf } from './error-rules';
import { lockoutAfterFailure, lockoutView } from './model-lockout';
import { afterProviderFailure, type ProviderCooldownState } from './provider-cooldown';

/** A failed attempt: the network failed, or the upstream answered with an error. */
export type FailureOutcome =
  | { kind: 'network'; candidate: Candidate; probe: boolean; message: string }
  | {
      kind: 'upstream';
      candidate: Candidate;
      probe: boolean;
      classification: Classification;
      status: number;
      message: string;
      /** When the failed request was dispatched (the connection cooldown's herd guard). */
      requestStartedAt: number;
    };

/** Another connection leaving through the failing connection's egress IP. */
export interface EgressSibling {
  connection: CatalogConnection;
  authClass: AuthClass;
}

/** The state the decision reads, as it stands at `now`. */
export interface FailureState {
  providerCooldown: ProviderCooldownState;
  /** Stored health of a connection (healthy when none is stored). */
  health(connection: string): ConnectionHealth;
  lockout(key: string): LockoutEntry | undefined;
  /** Filled only for an egress-bucketed error (see `coolsEgressSiblings`). */
  egressSiblings: readonly EgressSibling[];
}

/** What to tell the provider's breaker: a failure, or that a probe got an answer. */
export type BreakerEffect = { kind: 'failure'; cause: string } | { kind: 'probe_answered' } | null;

export interface FailureDecision {
  breaker: BreakerEffect;
  /** The provider cooldown's next state; null leaves it as it is. */
  providerCooldown: ProviderCooldownState | null;
  /** A lockout entry to store. */
  lockout: LockoutEntry | null;
  /** Health to store, per connection. */
  health: { connection: string; health: ConnectionHealth }[];
  /** One event per state change, in the order the changes are made. */
  events: EngineEvent[];
}

function excerpt(text: string, max = 200): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** Whether the error also cools the connections sharing the egress IP (a free tier limited by IP). */
export function coolsEgressSiblings(c: Candidate, cls: Classification): boolean {
  return (
    cls.egressBucket &&
    egressFamilyOf(c.target.provider.id) !== null &&
    c.connection.options?.disableCooling !== true
  );
}

/**
 * Whether a model lockout applies. A rule's own scope or cooldown is the operator's (or a
 * built-in rule's) consent; every other lockout needs lockout switched on, and a status in
 * errorCodes unless a pattern named the scope (e.g. a 400 saying the model is not accessible).
 */
function lockoutApplies(cls: Classification, settings: FailureSettings): boolean {
  const l = cls.lockout;
  if (l === null) return false;
  const named = l.scope !== undefined;
  if (cls.ruleId !== null && (named || l.cooldownMs !== undefined)) return true;
  return settings.lockout.enabled && (named || settings.lockout.errorCodes.includes(cls.status));
}

/** Which of lock and cool an upstream error gets (`Classification.prefer`). */
function lockOrCool(
  c: Candidate,
  cls: Classification,
  settings: FailureSettings,
): { lock: boolean; cool: ConnectionFailure | null } {
  const applies = lockoutApplies(cls, settings);
  const disableCooling = c.connection.options?.disableCooling === true;
  const egressBucket = cls.egressBucket && egressFamilyOf(c.target.provider.id) !== null;
  if (cls.connection?.kind === 'cooldown') {
    if (cls.prefer === 'lockout' && applies && !egressBucket) return { lock: true, cool: null };
    // Cooling is off for this connection: lock only the model instead.
    if (disableCooling && cls.lockout) return { lock: true, cool: null };
    return { lock: false, cool: cls.connection };
  }
  return { lock: cls.lockout !== null && applies, cool: cls.connection };
}

function lockoutScope(
  c: Candidate,
  cls: Classification,
  l: NonNullable<Classification['lockout']>,
): { scope?: LockoutScope; cooldownMs?: number } {
  const forced = c.connection.options?.disableCooling === true && cls.prefer === 'connection';
  return {
    ...(l.scope ? { scope: l.scope } : forced ? { scope: 'model' as const } : {}),
    ...(l.cooldownMs !== undefined ? { cooldownMs: l.cooldownMs } : {}),
  };
}

/** A provider-level failure: the breaker counts it, and so does the windowed cooldown if on. */
function providerFailure(
  c: Candidate,
  state: FailureState,
  settings: FailureSettings,
  cause: string,
  now: number,
): Pick<FailureDecision, 'breaker' | 'providerCooldown' | 'events'> {
  const breaker = { kind: 'failure' as const, cause };
  if (settings.providerCooldown === null) return { breaker, providerCooldown: null, events: [] };
  const next = afterProviderFailure(state.providerCooldown, now, settings.providerCooldown);
  const provider = c.target.provider.id;
  return {
    breaker,
    providerCooldown: next.state,
    events:
      next.until === null
        ? []
        : [{ type: 'provider.cooldown', at: now, provider, until: next.until, cause }],
  };
}

function connectionFailure(
  conn: CatalogConnection,
  authClass: AuthClass,
  failure: ConnectionFailure,
  outcome: Extract<FailureOutcome, { kind: 'upstream' }>,
  cause: string,
  state: FailureState,
  settings: FailureSettings,
  now: number,
): Pick<FailureDecision, 'health' | 'events'> {
  const cooldown = settings.connectionCooldown;
  const { health, change } = applyFailure(
    state.health(conn.id),
    {
      failure,
      reason: outcome.classification.reason,
      errorCode: String(outcome.status),
      message: cause,
      requestStartedAt: outcome.requestStartedAt,
    },
    {
      baseMs: cooldown.baseMs[authClass === 'oauth' ? 'oauth' : 'api_key'],
      capMs: cooldown.capMs,
      disableCooling: conn.options?.disableCooling === true,
    },
    now,
  );
  const base = { at: now, provider: conn.provider, connection: conn.id, cause };
  const events: EngineEvent[] =
    change.kind === 'cooldown'
      ? [{ ...base, type: 'connection.cooldown', status: 'unavailable', until: change.until }]
      : change.kind === 'terminal'
        ? [{ ...base, type: 'connection.terminal', status: change.status, until: null }]
        : [];
  return { health: [{ connection: conn.id, health }], events };
}

/** The effects of one failed attempt on every resilience mechanism. */
export function decideFailure(
  outcome: FailureOutcome,
  state: FailureState,
  settings: FailureSettings,
  now: number,
): FailureDecision {
  const c = outcome.candidate;
  if (outcome.kind === 'network') {
    const p = providerFailure(c, state, settings, `network: ${outcome.message}`, now);
    return { ...p, lockout: null, health: [] };
  }
  const cls = outcome.classification;
  const provider = c.target.provider;
  const cause = `HTTP ${outcome.status}${cls.ruleId ? ` (rule ${cls.ruleId})` : ''}: ${excerpt(outcome.message)}`;
  const decision: FailureDecision = cls.breakerFailure
    ? { ...providerFailure(c, state, settings, cause, now), lockout: null, health: [] }
    : {
        // The provider answered: that is what a probe asks. Account-level errors do not count.
        breaker: outcome.probe ? { kind: 'probe_answered' } : null,
        providerCooldown: null,
        lockout: null,
        health: [],
        events: [],
      };

  const { lock, cool } = lockOrCool(c, cls, settings);
  if (lock && cls.lockout) {
    decision.lockout = lockoutAfterFailure(
      {
        provider: provider.id,
        connection: c.connection.id,
        model: c.target.model,
        status: cls.status,
        reason: cls.reason,
        ...lockoutScope(c, cls, cls.lockout),
        families: provider.options?.quotaFamilies ?? {},
      },
      settings.lockout,
      now,
      state.lockout,
    );
    if (decision.lockout) {
      decision.events.push({
        type: 'lockout.added',
        at: now,
        lockout: lockoutView(decision.lockout),
        cause,
      });
    }
  }

  const cooled: Pick<FailureDecision, 'health' | 'events'>[] = [];
  if (cool) {
    cooled.push(
      connectionFailure(
        c.connection,
        provider.authClass,
        cool,
        outcome,
        cause,
        state,
        settings,
        now,
      ),
    );
  }
  const siblingFailure: ConnectionFailure =
    cls.connection?.kind === 'cooldown' ? cls.connection : { kind: 'cooldown' };
  for (const s of state.egressSiblings) {
    const siblingCause = `${cause} (same egress IP as ${c.connection.id})`;
    cooled.push(
      connectionFailure(
        s.connection,
        s.authClass,
        siblingFailure,
        outcome,
        siblingCause,
        state,
        settings,
        now,
      ),
    );
  }
  for (const x of cooled) {
    decision.health.push(...x.health);
    decision.events.push(...x.events);
  }
  return decision;
}
