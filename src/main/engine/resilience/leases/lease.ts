// Exclusive session leases (RESILIENCE.md §10): the pure part. A lease is one managed client's
// exclusive ownership of one connection, fenced by a generation. No I/O and no clock here:
// every function takes `now`; the store (store/leases.ts) and the LeaseService
// (resilience/lease-service.ts) do the SQL and the events.

import { createHash } from 'node:crypto';
import type { LeaseView } from '../../../../shared/contract';
import type { Lease } from '../../store/state-records';

/** The scope a gateway API key needs (with a non-empty `allowedConnections`) to hold leases. */
export const LEASE_SCOPE = 'lease:exclusive';
export const DEFAULT_TTL_MS = 120_000;
export const MIN_TTL_MS = 1_000;
export const MAX_TTL_MS = 30 * 60_000;
/** Bounds of the `Retry-After` of `LEASE_CAPACITY_UNAVAILABLE`, in seconds *(Breakwater)*. */
export const MIN_RETRY_AFTER_S = 1;
export const MAX_RETRY_AFTER_S = 300;

/** Owner tokens: `bwl_` + 43 base64url characters (32 random bytes). Only the SHA-256 is stored. */
export const OWNER_TOKEN_PATTERN = /^bwl_[A-Za-z0-9_-]{43}$/;

export function ownerTokenFrom(random32: Buffer): string {
  if (random32.length !== 32) throw new Error('an owner token needs exactly 32 random bytes');
  return `bwl_${random32.toString('base64url')}`;
}

export function hashOwner(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** TTL of an acquire or renew: default 120 s, clamped to 1 s – 30 min. */
export function clampTtl(ttlMs: number | undefined): number {
  if (ttlMs === undefined || !Number.isFinite(ttlMs)) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.round(ttlMs)));
}

/** Whole seconds for `Retry-After`, rounded up, bounded to 1–300 s. */
export function retryAfterSeconds(ms: number): number {
  if (Number.isNaN(ms)) return MAX_RETRY_AFTER_S;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(MIN_RETRY_AFTER_S, Math.ceil(ms / 1000)));
}

/**
 * Generation of a new lease for an owner: the highest generation that owner ever held + 1 (1
 * for a new owner). Renew and move keep the generation; only a new acquire raises it, so an
 * older holder of the same owner token is fenced off by the number alone.
 */
export function nextGeneration(previousMax: number | null): number {
  return (previousMax ?? 0) + 1;
}

// ---------------------------------------------------------------------------- state machine

export type LeaseCommand =
  | { type: 'renew'; ttlMs: number }
  | { type: 'release'; reason: 'released' | 'released_by_operator' }
  | {
      type: 'invalidate';
      reason: 'superseded' | 'key_revoked' | 'connection_not_allowed' | 'connection_removed';
    }
  | { type: 'move'; connection: string };

export type LeaseErrorCode =
  | 'LEASE_UNKNOWN_OWNER'
  | 'LEASE_GENERATION_STALE'
  | 'LEASE_GENERATION_UNKNOWN'
  | 'LEASE_NOT_ACTIVE';

export type Transition =
  | { ok: true; lease: Lease }
  | { ok: false; code: LeaseErrorCode; message: string };

/** The lease as it is at `now`: an ACTIVE lease past its expiry is EXPIRED (lazy expiry). */
export function current(lease: Lease, now: number): Lease {
  if (lease.status.name !== 'ACTIVE' || lease.expiresAt > now) return lease;
  return { ...lease, status: { name: 'EXPIRED', endedAt: lease.expiresAt, reason: 'ttl_elapsed' } };
}

export function isActive(lease: Lease, now: number): boolean {
  return current(lease, now).status.name === 'ACTIVE';
}

function notActive(lease: Lease): Transition {
  const s = lease.status;
  return {
    ok: false,
    code: 'LEASE_NOT_ACTIVE',
    message: `lease generation ${lease.generation} is ${s.name}${s.name === 'ACTIVE' ? '' : ` (${s.reason})`}; acquire again with the same owner for a new generation`,
  };
}

/** The one transition function: every change of a lease goes through here. */
export function apply(lease: Lease, command: LeaseCommand, now: number): Transition {
  const l = current(lease, now);
  if (l.status.name !== 'ACTIVE') return notActive(l);
  switch (command.type) {
    case 'renew':
      return { ok: true, lease: { ...l, expiresAt: now + clampTtl(command.ttlMs) } };
    case 'release':
      return {
        ok: true,
        lease: { ...l, status: { name: 'RELEASED', endedAt: now, reason: command.reason } },
      };
    case 'invalidate':
      return {
        ok: true,
        lease: { ...l, status: { name: 'INVALIDATED', endedAt: now, reason: command.reason } },
      };
    case 'move':
      return { ok: true, lease: { ...l, connection: command.connection } };
  }
}

// ---------------------------------------------------------------------------- fencing

export type FenceDecision =
  | { kind: 'admit'; lease: Lease }
  | { kind: 'refuse'; code: LeaseErrorCode; message: string };

/**
 * Decides whether a request presenting `generation` for an owner may proceed. `latest` is the
 * owner's newest lease under the presenting API key (null when the key never saw this owner).
 * Only the newest generation, still ACTIVE, is admitted.
 */
export function fence(latest: Lease | null, generation: number, now: number): FenceDecision {
  if (!latest) {
    return {
      kind: 'refuse',
      code: 'LEASE_UNKNOWN_OWNER',
      message: 'this lease owner is not known for this API key; acquire a lease first',
    };
  }
  const l = current(latest, now);
  if (generation < l.generation) {
    return {
      kind: 'refuse',
      code: 'LEASE_GENERATION_STALE',
      message: `lease generation ${generation} is stale: generation ${l.generation} superseded it`,
    };
  }
  if (generation > l.generation) {
    return {
      kind: 'refuse',
      code: 'LEASE_GENERATION_UNKNOWN',
      message: `lease generation ${generation} was never issued to this owner (latest is ${l.generation})`,
    };
  }
  if (l.status.name !== 'ACTIVE') {
    const t = notActive(l) as { code: LeaseErrorCode; message: string };
    return { kind: 'refuse', code: t.code, message: t.message };
  }
  return { kind: 'admit', lease: l };
}

// ---------------------------------------------------------------------------- capacity

/** One routing option as the capacity decision sees it. */
export interface Slot<T> {
  item: T;
  connection: string;
  /** Passes the resilience checks (breaker, cooldown, lockout) now. */
  eligible: boolean;
  /** Expiry of someone else's ACTIVE lease on this connection; null when free. */
  heldUntil: number | null;
}

export type CapacityDecision<T> =
  | { kind: 'route'; use: Slot<T>[]; held: Slot<T>[] }
  | { kind: 'wait'; retryAfterMs: number };

/**
 * Options held by someone else's lease are never used. When eligible options exist but every
 * one of them is held, the caller waits for the earliest of those leases to end
 * (`LEASE_CAPACITY_UNAVAILABLE`). No eligible option at all is not a lease conflict: the free
 * ones go on, and the resilience checks answer for them.
 */
export function decideCapacity<T>(slots: readonly Slot<T>[], now: number): CapacityDecision<T> {
  const use = slots.filter((s) => s.heldUntil === null);
  const held = slots.filter((s) => s.heldUntil !== null);
  const eligible = slots.filter((s) => s.eligible);
  if (eligible.length > 0 && eligible.every((s) => s.heldUntil !== null)) {
    const earliest = Math.min(...eligible.map((s) => s.heldUntil!));
    return { kind: 'wait', retryAfterMs: Math.max(0, earliest - now) };
  }
  return { kind: 'route', use, held };
}

export type ManagedPlan<T> =
  | { kind: 'route'; use: T[]; held: Slot<T>[]; moving: boolean }
  | { kind: 'wait'; retryAfterMs: number };

/**
 * A managed request goes to its leased connection (`own`). Only when none of those options is
 * eligible (cooling, locked, open circuit, or the model is not served there) may it move, with
 * the same generation, to a free eligible option of its key's other allowed connections
 * (`pool`); the leased options stay first so a recovery in between keeps it home.
 */
export function planManaged<T>(
  own: readonly Slot<T>[],
  pool: readonly Slot<T>[],
  now: number,
): ManagedPlan<T> {
  if (own.some((s) => s.eligible)) {
    return { kind: 'route', use: own.map((s) => s.item), held: [], moving: false };
  }
  const d = decideCapacity(pool, now);
  if (d.kind === 'wait') return d;
  return {
    kind: 'route',
    use: [...own.map((s) => s.item), ...d.use.map((s) => s.item)],
    held: d.held,
    moving: d.use.some((s) => s.eligible),
  };
}

export type Grant =
  | { kind: 'grant'; connection: string }
  | { kind: 'wait'; retryAfterMs: number }
  | { kind: 'none' };

/**
 * Which connection an acquire gets: a free eligible one (the `preferred` one first), else waits
 * when the only eligible ones are held; a free connection that is merely unhealthy is granted
 * when nothing eligible exists (a lease owns a connection, not its health).
 */
export function chooseConnection(
  slots: readonly Slot<string>[],
  preferred: string | null,
  now: number,
): Grant {
  if (slots.length === 0) return { kind: 'none' };
  const d = decideCapacity(slots, now);
  if (d.kind === 'wait') return d;
  const rank = (s: Slot<string>) => (s.eligible ? 0 : 2) + (s.connection === preferred ? 0 : 1);
  const best = [...d.use].sort((a, b) => rank(a) - rank(b))[0];
  if (best) return { kind: 'grant', connection: best.connection };
  // Every option is held and none is eligible: wait for the first lease to end.
  const earliest = Math.min(...d.held.map((s) => s.heldUntil!));
  return { kind: 'wait', retryAfterMs: Math.max(0, earliest - now) };
}

export function leaseView(lease: Lease): LeaseView {
  return {
    connection: lease.connection,
    generation: lease.generation,
    state: lease.status.name,
    expiresAt: lease.expiresAt,
  };
}

/** The body of a session-leases answer about `lease` (with the owner token after an acquire). */
export function replyBody(lease: Lease, owner?: string): Record<string, unknown> {
  const s = lease.status;
  return {
    ...(owner ? { owner } : {}),
    generation: lease.generation,
    connection: lease.connection,
    state: s.name,
    expiresAt: lease.expiresAt,
    ...(s.name === 'ACTIVE' ? {} : { endReason: s.reason, endedAt: s.endedAt }),
  };
}
