// Repository for exclusive session leases (RESILIENCE.md §10). Two unique partial indexes keep
// at most one ACTIVE lease per owner and per connection; every read-decide-write runs inside
// `atomically` (an IMMEDIATE transaction), so two writers can never both pass a check.

import type { LeaseStateName } from '../../../shared/contract';
import type { Db } from './db';
import type { EndReason, Lease } from './state-records';

interface LeaseRow {
  id: number;
  owner_hash: string;
  key_name: string;
  connection_id: string;
  generation: number;
  state: LeaseStateName;
  end_reason: string | null;
  acquired_at: number;
  expires_at: number;
  ended_at: number | null;
}

export interface LeaseRepo {
  /** Runs `fn` in one IMMEDIATE transaction (nested calls join the outer one). */
  atomically<T>(fn: () => T): T;
  /** Every lease stored as ACTIVE (some may be past their expiry: see `expireDue`). */
  active(): Lease[];
  /** Marks ACTIVE leases whose expiry is at or before `now` as EXPIRED; returns them. */
  expireDue(now: number): Lease[];
  byId(id: number): Lease | null;
  /** The newest lease (highest generation) of an owner under one API key. */
  latestForOwner(ownerHash: string, keyName: string): Lease | null;
  /** The highest generation an owner ever held, under any key; null for a new owner. */
  maxGeneration(ownerHash: string): number | null;
  /** Inserts a lease; throws on a unique-index violation. Returns it with its id. */
  insert(lease: Lease): Lease;
  /** Writes state, end reason, expiry and connection of an existing lease. */
  update(lease: Lease): void;
  /** Deletes ended leases that ended before `before`, keeping each owner's newest row. */
  prune(before: number): number;
}

function toLease(r: LeaseRow): Lease {
  return {
    id: r.id,
    ownerHash: r.owner_hash,
    keyName: r.key_name,
    connection: r.connection_id,
    generation: r.generation,
    acquiredAt: r.acquired_at,
    expiresAt: r.expires_at,
    status:
      r.state === 'ACTIVE'
        ? { name: 'ACTIVE' }
        : {
            name: r.state,
            endedAt: r.ended_at ?? r.expires_at,
            reason: (r.end_reason ?? 'released') as EndReason,
          },
  };
}

function params(l: Lease) {
  const s = l.status;
  return {
    id: l.id,
    ownerHash: l.ownerHash,
    keyName: l.keyName,
    connection: l.connection,
    generation: l.generation,
    state: s.name,
    endReason: s.name === 'ACTIVE' ? null : s.reason,
    acquiredAt: l.acquiredAt,
    expiresAt: l.expiresAt,
    endedAt: s.name === 'ACTIVE' ? null : s.endedAt,
  };
}

export function createLeaseRepo(db: Db): LeaseRepo {
  const activeStmt = db.prepare<[], LeaseRow>(
    "SELECT * FROM session_leases WHERE state = 'ACTIVE' ORDER BY id",
  );
  const expireStmt = db.prepare<[number], LeaseRow>(
    `UPDATE session_leases SET state = 'EXPIRED', end_reason = 'ttl_elapsed', ended_at = expires_at
     WHERE state = 'ACTIVE' AND expires_at <= ? RETURNING *`,
  );
  const byIdStmt = db.prepare<[number], LeaseRow>('SELECT * FROM session_leases WHERE id = ?');
  const latestStmt = db.prepare<[string, string], LeaseRow>(
    `SELECT * FROM session_leases WHERE owner_hash = ? AND key_name = ?
     ORDER BY generation DESC LIMIT 1`,
  );
  const maxGenStmt = db.prepare<[string], { g: number | null }>(
    'SELECT MAX(generation) AS g FROM session_leases WHERE owner_hash = ?',
  );
  const insertStmt = db.prepare(
    `INSERT INTO session_leases (owner_hash, key_name, connection_id, generation, state, end_reason,
       acquired_at, expires_at, ended_at)
     VALUES (@ownerHash, @keyName, @connection, @generation, @state, @endReason, @acquiredAt,
       @expiresAt, @endedAt)`,
  );
  const updateStmt = db.prepare(
    `UPDATE session_leases SET connection_id = @connection, state = @state, end_reason = @endReason,
       expires_at = @expiresAt, ended_at = @endedAt WHERE id = @id`,
  );
  const pruneStmt = db.prepare<[number]>(
    `DELETE FROM session_leases WHERE state != 'ACTIVE' AND ended_at < ?
     AND id NOT IN (SELECT MAX(id) FROM session_leases GROUP BY owner_hash)`,
  );

  return {
    atomically<T>(fn: () => T): T {
      if (db.inTransaction) return fn();
      return db.transaction(fn).immediate();
    },
    active: () => activeStmt.all().map(toLease),
    expireDue: (now) => expireStmt.all(now).map(toLease),
    byId(id) {
      const r = byIdStmt.get(id);
      return r ? toLease(r) : null;
    },
    latestForOwner(ownerHash, keyName) {
      const r = latestStmt.get(ownerHash, keyName);
      return r ? toLease(r) : null;
    },
    maxGeneration: (ownerHash) => maxGenStmt.get(ownerHash)?.g ?? null,
    insert(lease) {
      const info = insertStmt.run(params(lease));
      return { ...lease, id: Number(info.lastInsertRowid) };
    },
    update(lease) {
      updateStmt.run(params(lease));
    },
    prune: (before) => pruneStmt.run(before).changes,
  };
}
