// The state backend seam (issue 16). The resilience mechanisms keep deciding on their in-memory
// state, which stays the one the request path reads; a backend only says where else that state
// lives. `local`: nowhere else (this process and its SQLite, as before). `redis`: shared by every
// instance of a team, with the transitions that must be atomic across instances done in Redis.

import type Bottleneck from 'bottleneck';
import type { TeamView } from '../../../shared/contract';

/** The kinds of state instances share (each has its own key space and mirror). */
export type SharedKind = 'breaker' | 'health' | 'lockout' | 'pin' | 'lease' | 'quota';

/** One record changed: its new value, or null when it was removed. */
export interface SharedChange {
  kind: SharedKind;
  id: string;
  value: unknown;
}

/** A permit of a cross-instance semaphore; released in `finally`, safe twice. */
export interface SharedPermit {
  /** False when the request went ahead without one (fail-open: no Redis, or the wait ran out). */
  readonly held: boolean;
  release(): void;
}

/** Bottleneck's Redis clustering for the request queues: one limiter id per connection. */
export interface LimiterStore {
  readonly connection: Bottleneck.IORedisConnection;
  /** The limiter id of a queue (its Redis keys are named after it). */
  id(name: string): string;
  /** False while Redis is unreachable: the queues then use their local limiters. */
  usable(): boolean;
}

/** A connection's exclusive lease claimed for an owner (see `StateBackend.claimLease`). */
export interface LeaseClaim {
  connection: string;
  ownerHash: string;
  /** The connection of the owner's lease this one supersedes (its claim ends), if any. */
  previous: string | null;
  /** The owner's newest generation this instance knows: the new one is above it. */
  generation: number;
  ttlMs: number;
}

export type ClaimAnswer =
  | { kind: 'granted'; generation: number }
  | { kind: 'held'; retryAfterMs: number };

/** `renew` extends the claim by ttlMs; `release` ends it. */
export interface LeaseFence {
  connection: string;
  ownerHash: string;
  generation: number;
  action: 'renew' | 'release';
  ttlMs: number;
}

/** `stale`: a newer generation of the owner is stored; `taken`: another owner holds it. */
export type FenceAnswer = { kind: 'ok' } | { kind: 'stale'; current: number } | { kind: 'taken' };

/** A counter shared by the team (a gateway key's use in one budget window). */
export interface SharedCounter {
  id: string;
  /** Refused at or over this (null: no limit). */
  max: number | null;
  ttlMs: number;
}

export interface CounterAdd {
  id: string;
  by: number;
  ttlMs: number;
}

/** Whether the request was counted (no counter at its max), and the counters before it. */
export interface CountersAnswer {
  admitted: boolean;
  used: number[];
}

export interface StateBackend {
  readonly kind: 'local' | 'redis';
  view(): TeamView;
  /** What other instances wrote that did not parse and was dropped (a counter since start). */
  droppedPeerRecords(): number;
  /** Changes other instances made (never this one's own), applied to the local mirror. */
  onChange(listener: (c: SharedChange) => void): void;
  onStatus(listener: (v: TeamView) => void): void;
  /** Stores a change and tells the others. Never waits and never throws (fail-open). */
  put(c: SharedChange, ttlMs: number | null): void;
  /**
   * Stores a cooldown only if it ends after the one stored (the herd guard across instances);
   * when it does not, the stored one comes back through `onChange`.
   */
  lengthen(c: SharedChange, until: number, ttlMs: number): void;
  /** The half-open probe permit of `scope` across instances: a token, or null when taken. */
  probe(scope: string, ttlMs: number): Promise<string | null>;
  releaseProbe(scope: string, token: string): void;
  /** A permit of the semaphore `scope` (at most `limit` held, each expiring after `ttlMs`). */
  permit(
    scope: string,
    limit: number,
    ttlMs: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<SharedPermit>;
  limiterStore(): LimiterStore | null;
  /**
   * The atomic lease acquire across instances (one script): null when there is nothing to
   * ask (local) or Redis cannot answer, and the instance decides alone (fail-open).
   */
  claimLease(c: LeaseClaim): Promise<ClaimAnswer | null>;
  /** The generation fence of a renew or release across instances; null as for `claimLease`. */
  fenceLease(f: LeaseFence): Promise<FenceAnswer | null>;
  /**
   * Checks shared counters and counts one in the first if none is at its max, in one atomic
   * step; null when there is nothing to ask or Redis cannot answer (fail-open).
   */
  admitCounters(counters: readonly SharedCounter[]): Promise<CountersAnswer | null>;
  /** Adds to shared counters; never waits, and what Redis cannot take is dropped. */
  addCounters(adds: readonly CounterAdd[]): void;
  close(): Promise<void>;
}

export const NO_SHARED_PERMIT: SharedPermit = Object.freeze({ held: false, release() {} });

const LOCAL_VIEW: TeamView = Object.freeze({ backend: 'local', status: 'connected' });

/** The default: nothing is shared, every call is free (the request path never reaches Redis). */
export const LOCAL_STATE: StateBackend = Object.freeze({
  kind: 'local',
  view: () => LOCAL_VIEW,
  droppedPeerRecords: () => 0,
  onChange() {},
  onStatus() {},
  put() {},
  lengthen() {},
  probe: () => Promise.resolve('local'),
  releaseProbe() {},
  permit: () => Promise.resolve(NO_SHARED_PERMIT),
  limiterStore: () => null,
  claimLease: () => Promise.resolve(null),
  fenceLease: () => Promise.resolve(null),
  admitCounters: () => Promise.resolve(null),
  addCounters() {},
  close: () => Promise.resolve(),
});
