// What a team instance reads from Redis (a change message on the channel, or a record read back on
// a resync) is another process's word: possibly another version, a bug, or anyone who can write to
// the Redis. Each message is read into a fresh, checked record or refused with a ValidationError
// (whose reason never quotes the value), and what parses is bounded: no end of a cooldown, lockout
// or lease beyond what this instance could have set itself, no time in the future that should be
// in the past, no count or text without a limit. Unknown fields are ignored (a newer version may
// send more).

import type {
  BreakerSnapshot,
  BreakerState,
  BreakerStateName,
  BreakerTransition,
  ConnectionHealth,
  EndReason,
  Lease,
  LeaseStatus,
  LockoutEntry,
  LockoutScope,
} from '../contract';
import { ValidationError } from '../validation-error';
import { array, DAY_MS, isPlainObject, type Obj, object, oneOf, string } from './values';

/** One change another instance sent: `value` null when the record was removed. */
export type PeerChange =
  | { kind: 'breaker'; id: string; value: BreakerSnapshot | null }
  | { kind: 'health'; id: string; value: ConnectionHealth | null }
  | { kind: 'lockout'; id: string; value: LockoutEntry | null }
  | { kind: 'pin'; id: string; value: { connection: string } | null }
  | { kind: 'lease'; id: string; value: Lease | null }
  | { kind: 'quota'; id: string; value: (Obj & { learnedAt: number }) | null };

export interface PeerMessage {
  /** The sending instance. */
  from: string;
  change: PeerChange;
}

/** A message longer than this is refused before it is parsed. */
export const PEER_MESSAGE_MAX_CHARS = 64 * 1024;
/** The longest cooldown an instance sets itself (a stated Retry-After is capped at 7 days). */
export const PEER_COOLDOWN_MAX_MS = 7 * DAY_MS;
/** The longest model lockout (the `modelLockout.maxCooldownMs` setting's maximum). */
export const PEER_LOCKOUT_MAX_MS = 7 * DAY_MS;
/** A lease's TTL is at most 30 minutes. */
export const PEER_LEASE_MAX_MS = 30 * 60_000;
/** The longest reset timeout: the `breaker.*.resetTimeoutMs` maximum (1 day) doubled up to 16×. */
export const PEER_RESET_MAX_MS = 16 * DAY_MS;
/** A half-open probe blocks others at most this long (a request's deadline is far shorter). */
export const PEER_PROBE_MAX_MS = DAY_MS;
const MAX_COUNT = 1_000_000;
const MAX_TEXT = 500;
const MAX_ID = 256;
const MAX_HISTORY = 20;

const KINDS = ['breaker', 'health', 'lockout', 'pin', 'lease', 'quota'] as const;
const BREAKER_STATES: readonly BreakerStateName[] = ['CLOSED', 'DEGRADED', 'OPEN', 'HALF_OPEN'];
const HEALTH_STATUSES = [
  'active',
  'unavailable',
  'banned',
  'expired',
  'credits_exhausted',
] as const satisfies readonly ConnectionHealth['status'][];
const LOCKOUT_SCOPES: readonly LockoutScope[] = ['family', 'model', 'exact'];
const ENDED_STATES = ['RELEASED', 'EXPIRED', 'INVALIDATED'] as const;
const END_REASONS: readonly EndReason[] = [
  'released',
  'released_by_operator',
  'ttl_elapsed',
  'superseded',
  'key_revoked',
  'connection_not_allowed',
  'connection_removed',
];

/** Reads one message as sent on `<prefix>changes` or stored in a `<prefix>rec:` key. */
export function readPeerMessage(raw: string, now: number): PeerMessage {
  if (raw.length > PEER_MESSAGE_MAX_CHARS) throw new ValidationError('message', 'too long');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ValidationError('message', 'is not JSON');
  }
  const m = object(parsed, 'message', null);
  const from = text(m.from, 'from', 64);
  const kind = oneOf(m.kind, 'kind', KINDS);
  const id = text(m.id, 'id', MAX_ID);
  const clock = new Bounds(now);
  return { from, change: readChange(kind, id, m.v ?? null, clock) };
}

function readChange(kind: PeerChange['kind'], id: string, v: unknown, b: Bounds): PeerChange {
  if (v === null) return { kind, id, value: null };
  switch (kind) {
    case 'breaker':
      return { kind, id, value: readBreaker(v, b) };
    case 'health':
      return { kind, id, value: readHealth(v, b) };
    case 'lockout':
      return { kind, id, value: readLockout(v, b) };
    case 'pin':
      return {
        kind,
        id,
        value: { connection: text(object(v, 'v', null).connection, 'v.connection', MAX_ID) },
      };
    case 'lease':
      return { kind, id, value: readLease(v, b) };
    case 'quota': {
      const q = object(v, 'v', null);
      return { kind, id, value: { ...q, learnedAt: b.past(q.learnedAt, 'v.learnedAt') } };
    }
  }
}

/** Times read relative to this instance's clock. */
class Bounds {
  constructor(readonly now: number) {}

  /** A moment that has happened: not after now. */
  past(v: unknown, field: string): number {
    return Math.min(this.now, time(v, field));
  }

  /** An end at most `maxMs` from now. */
  end(v: unknown, field: string, maxMs: number): number {
    return Math.min(this.now + maxMs, time(v, field));
  }
}

function time(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new ValidationError(field, 'must be a time (ms since the epoch)');
  return v;
}

function count(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new ValidationError(field, 'must be a whole number of at least 0');
  return Math.min(v, MAX_COUNT);
}

function duration(v: unknown, field: string, maxMs: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new ValidationError(field, 'must be a positive duration');
  return Math.min(v, maxMs);
}

/** A non-empty string, refused beyond `max` characters (an id must not be cut). */
function text(v: unknown, field: string, max: number): string {
  const s = string(v, field);
  if (s.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  return s;
}

/** A free text (an error message): cut at a length, or null. */
function note(v: unknown, field: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new ValidationError(field, 'must be a string or null');
  return v.slice(0, MAX_TEXT);
}

function orNull<T>(v: unknown, read: (x: unknown) => T): T | null {
  return v === null || v === undefined ? null : read(v);
}

function readBreaker(v: unknown, b: Bounds): BreakerSnapshot {
  const o = object(v, 'v', null);
  const history = array(o.history, 'v.history')
    .slice(-MAX_HISTORY)
    .map((t, i) => readTransition(t, `v.history[${i}]`, b));
  return { state: readBreakerState(o.state, b), history };
}

function readTransition(v: unknown, field: string, b: Bounds): BreakerTransition {
  const t = object(v, field, null);
  return {
    at: b.past(t.at, `${field}.at`),
    from: oneOf(t.from, `${field}.from`, BREAKER_STATES),
    to: oneOf(t.to, `${field}.to`, BREAKER_STATES),
    cause: note(t.cause, `${field}.cause`) ?? '',
  };
}

function readBreakerState(v: unknown, b: Bounds): BreakerState {
  const s = object(v, 'v.state', null);
  const name = oneOf(s.name, 'v.state.name', BREAKER_STATES);
  const failures = count(s.failures, 'v.state.failures');
  if (name === 'CLOSED' || name === 'DEGRADED') return { name, failures };
  const resetTimeoutMs = duration(s.resetTimeoutMs, 'v.state.resetTimeoutMs', PEER_RESET_MAX_MS);
  const failedProbes = count(s.failedProbes, 'v.state.failedProbes');
  if (name === 'OPEN')
    return {
      name,
      failures,
      openedAt: b.past(s.openedAt, 'v.state.openedAt'),
      resetTimeoutMs,
      failedProbes,
    };
  const probeUntil = orNull(s.probeUntil, (x) => b.end(x, 'v.state.probeUntil', PEER_PROBE_MAX_MS));
  return { name, failures, resetTimeoutMs, failedProbes, probeUntil };
}

function readHealth(v: unknown, b: Bounds): ConnectionHealth {
  const h = object(v, 'v', null);
  return {
    status: oneOf(h.status, 'v.status', HEALTH_STATUSES),
    rateLimitedUntil: orNull(h.rateLimitedUntil, (x) =>
      b.end(x, 'v.rateLimitedUntil', PEER_COOLDOWN_MAX_MS),
    ),
    backoffLevel: count(h.backoffLevel, 'v.backoffLevel'),
    lastError: note(h.lastError, 'v.lastError'),
    lastErrorType: note(h.lastErrorType, 'v.lastErrorType'),
    errorCode: note(h.errorCode, 'v.errorCode'),
    cooldownSetAt: orNull(h.cooldownSetAt, (x) => b.past(x, 'v.cooldownSetAt')),
    refusalStreak: count(h.refusalStreak, 'v.refusalStreak'),
    authFailures: count(h.authFailures, 'v.authFailures'),
  };
}

function readLockout(v: unknown, b: Bounds): LockoutEntry {
  const l = object(v, 'v', null);
  return {
    key: text(l.key, 'v.key', MAX_ID),
    provider: text(l.provider, 'v.provider', MAX_ID),
    connection: text(l.connection, 'v.connection', MAX_ID),
    model: text(l.model, 'v.model', MAX_ID),
    subject: text(l.subject, 'v.subject', MAX_ID),
    scope: oneOf(l.scope, 'v.scope', LOCKOUT_SCOPES),
    reason: note(l.reason, 'v.reason') ?? '',
    failureCount: count(l.failureCount, 'v.failureCount'),
    expiresAt: b.end(l.expiresAt, 'v.expiresAt', PEER_LOCKOUT_MAX_MS),
    lockedAt: orNull(l.lockedAt, (x) => b.past(x, 'v.lockedAt')),
  };
}

function readLease(v: unknown, b: Bounds): Lease {
  const l = object(v, 'v', null);
  return {
    id: 0,
    ownerHash: text(l.ownerHash, 'v.ownerHash', MAX_ID),
    keyName: text(l.keyName, 'v.keyName', MAX_ID),
    connection: text(l.connection, 'v.connection', MAX_ID),
    generation: generation(l.generation),
    acquiredAt: b.past(l.acquiredAt, 'v.acquiredAt'),
    expiresAt: b.end(l.expiresAt, 'v.expiresAt', PEER_LEASE_MAX_MS),
    status: readLeaseStatus(l.status, b),
  };
}

/** Not clamped: a generation is an identity, and an instance's own never nears the limit. */
function generation(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ValidationError('v.generation', 'must be a whole number of at least 0');
  return v;
}

function readLeaseStatus(v: unknown, b: Bounds): LeaseStatus {
  if (!isPlainObject(v)) throw new ValidationError('v.status', 'must be a JSON object');
  if (v.name === 'ACTIVE') return { name: 'ACTIVE' };
  return {
    name: oneOf(v.name, 'v.status.name', ENDED_STATES),
    endedAt: b.past(v.endedAt, 'v.status.endedAt'),
    reason: oneOf(v.reason, 'v.status.reason', END_REASONS),
  };
}
