// The resilience records as each instance persists them and as team instances send them to each
// other through Redis (a format between instances, possibly of different versions: what is read
// back is checked by src/shared/schema/peer-records.ts before it is used).
import type { BreakerTransition, LeaseStateName, LockoutScope } from './state';

/** One union, data per state. */
export type BreakerState =
  | { name: 'CLOSED'; failures: number }
  | { name: 'DEGRADED'; failures: number }
  | {
      name: 'OPEN';
      failures: number;
      openedAt: number;
      resetTimeoutMs: number;
      failedProbes: number;
    }
  | {
      name: 'HALF_OPEN';
      failures: number;
      resetTimeoutMs: number;
      failedProbes: number;
      /** When the probe in flight stops blocking others; null when no probe is out. */
      probeUntil: number | null;
    };

export interface BreakerSnapshot {
  state: BreakerState;
  history: BreakerTransition[];
}

export type TerminalStatus = 'banned' | 'expired' | 'credits_exhausted';

/** Per-connection state of RESILIENCE.md §2, persisted as is. */
export interface ConnectionHealth {
  status: 'active' | 'unavailable' | TerminalStatus;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastError: string | null;
  lastErrorType: string | null;
  errorCode: string | null;
  /** When the current cooldown was set (herd guard: failures of requests started before it). */
  cooldownSetAt: number | null;
  /** Consecutive upstream refusals of single requests (3 → banned). */
  refusalStreak: number;
  /** Consecutive expired-credential failures (3 → expired). */
  authFailures: number;
}

export interface LockoutEntry {
  key: string;
  provider: string;
  connection: string;
  /** The model that failed (for a family key, the member that triggered it). */
  model: string;
  /** Family name for `family` scope, otherwise the model. */
  subject: string;
  scope: LockoutScope;
  reason: string;
  failureCount: number;
  expiresAt: number;
  /**
   * When the lock was set or its last re-probe failed: a lock longer than
   * `cooldown.reprobeAfterMs` lets one request through that long after. Absent on locks stored
   * before it was kept, which are not re-probed.
   */
  lockedAt?: number | null;
}

/** Why a lease stopped being ACTIVE. */
export type EndReason =
  | 'released'
  | 'released_by_operator'
  | 'ttl_elapsed'
  | 'superseded'
  | 'key_revoked'
  | 'connection_not_allowed'
  | 'connection_removed';

/** The state with its data: only ended leases carry when and why they ended. */
export type LeaseStatus =
  | { name: 'ACTIVE' }
  | { name: Exclude<LeaseStateName, 'ACTIVE'>; endedAt: number; reason: EndReason };

export interface Lease {
  /** Row id; 0 before the store assigned one. */
  id: number;
  ownerHash: string;
  /** Name of the gateway API key that acquired it: the fence is bound to it. */
  keyName: string;
  connection: string;
  generation: number;
  acquiredAt: number;
  expiresAt: number;
  status: LeaseStatus;
}
