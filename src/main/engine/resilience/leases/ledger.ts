// Exclusive session leases (RESILIENCE.md §10): the glue between the pure state machine
// (./leases) and the rows (store/leases.ts). Every write runs in one transaction that expires
// due leases first, and only a committed write announces its events.

import type { EngineEvent } from '../../../../shared/contract';
import type { LeaseRepo } from '../../store/leases';
import type { EndReason, Lease } from '../../store/state-records';
import {
  apply,
  type LeaseCommand,
  type LeaseErrorCode,
  leaseView,
  retryAfterSeconds,
} from './lease';

/**
 * A refusal of the session-leases endpoint. Thrown inside a write, it rolls the transaction
 * back; the endpoint answers it as `{error: {code, message, ...extra}}`.
 */
export class LeaseRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const FENCE_STATUS: Record<LeaseErrorCode, number> = {
  LEASE_UNKNOWN_OWNER: 404,
  LEASE_GENERATION_STALE: 409,
  LEASE_GENERATION_UNKNOWN: 409,
  LEASE_NOT_ACTIVE: 409,
};

const END_CAUSES: Record<EndReason, string> = {
  released: 'released by its owner',
  released_by_operator: 'released by the operator',
  ttl_elapsed: 'expired (not renewed in time)',
  superseded: 'superseded by a newer generation of the same owner',
  key_revoked: 'its API key no longer has the lease scope',
  connection_not_allowed: "the connection is no longer in its key's allowedConnections",
  connection_removed: 'its connection was removed',
};

export function acquiredEvent(lease: Lease, at: number, cause: string): EngineEvent {
  return { type: 'lease.acquired', at, lease: leaseView(lease), cause };
}

export function endedEvent(lease: Lease, at: number, cause?: string): EngineEvent {
  const s = lease.status;
  const why = cause ?? (s.name === 'ACTIVE' ? 'ended' : END_CAUSES[s.reason]);
  return { type: 'lease.ended', at, lease: leaseView(lease), cause: why };
}

export class LeaseLedger {
  /** ACTIVE leases as stored (re-read after every write; this process is the only writer). */
  private cache: Lease[] | null = null;

  constructor(
    readonly repo: LeaseRepo,
    private readonly emit: (event: EngineEvent) => void,
  ) {}

  active(): Lease[] {
    this.cache ??= this.repo.active();
    return this.cache;
  }

  /** Runs a read-decide-write in one IMMEDIATE transaction, expiring due leases first. */
  write<T>(now: number, fn: (events: EngineEvent[]) => T): T {
    const events: EngineEvent[] = [];
    let result: T;
    try {
      result = this.repo.atomically(() => {
        for (const l of this.repo.expireDue(now)) events.push(endedEvent(l, now));
        return fn(events);
      });
    } finally {
      this.cache = null;
    }
    // Only a committed transaction announces its changes (a refusal rolled everything back).
    for (const e of events) this.emit(e);
    return result;
  }

  /** Lazy expiry: promotes leases past their expiry before anything reads them. */
  expire(now: number): void {
    // A loop rather than `some`: this runs for every proxied request, nearly always over none.
    for (const l of this.active()) {
      if (l.expiresAt <= now) {
        this.write(now, () => undefined);
        return;
      }
    }
  }

  /** Applies a command inside a write; a refused one throws a `LeaseRefusal`. */
  transition(lease: Lease, command: LeaseCommand, now: number): Lease {
    const t = apply(lease, command, now);
    if (!t.ok) throw new LeaseRefusal(FENCE_STATUS[t.code], t.code, t.message);
    this.repo.update(t.lease);
    return t.lease;
  }
}

/** The 429 of an acquire when other clients' leases hold every connection the key may use. */
export function capacityRefusal(retryAfterMs: number): LeaseRefusal {
  const seconds = retryAfterSeconds(retryAfterMs);
  return new LeaseRefusal(
    429,
    'LEASE_CAPACITY_UNAVAILABLE',
    `every eligible connection this key may lease is held by another client's exclusive lease; retry in ${seconds} s`,
    { state: 'WAITING_FOR_CAPACITY', retryAfterMs },
    { 'retry-after': String(seconds) },
  );
}
