// Repository for resilience state that must survive a restart: breakers, connection health
// and model lockouts. Written in batches by the resilience manager, never per request.

import type { BreakerStateName, BreakerTransition, LockoutScope } from '../../../shared/contract';
import type { Db } from './db';
import { parseJson } from './json';
import type {
  BreakerSnapshot,
  BreakerState,
  ConnectionHealth,
  LockoutEntry,
} from './state-records';

interface BreakerRow {
  provider: string;
  state: BreakerStateName;
  failure_count: number;
  opened_at: number | null;
  reset_timeout_ms: number | null;
  failed_probes: number;
  history: string;
}

interface LockoutRow {
  key: string;
  provider: string;
  connection_id: string;
  model: string;
  subject: string;
  scope: LockoutScope;
  reason: string;
  failure_count: number;
  expires_at: number;
  locked_at: number | null;
}

/** Everything that changed since the last flush; `null` deletes. */
export interface ResilienceChanges {
  breakers: Map<string, BreakerSnapshot>;
  health: Map<string, ConnectionHealth | null>;
  lockouts: Map<string, LockoutEntry | null>;
}

export interface ResilienceRepo {
  loadBreakers(): Map<string, BreakerSnapshot>;
  loadHealth(): Map<string, ConnectionHealth>;
  loadLockouts(): LockoutEntry[];
  /** One transaction; rows of providers or connections deleted meanwhile are skipped. */
  save(changes: ResilienceChanges, now: number): void;
}

function breakerState(row: BreakerRow): BreakerState {
  const failures = row.failure_count;
  const resetTimeoutMs = row.reset_timeout_ms ?? 0;
  switch (row.state) {
    case 'OPEN':
      return {
        name: 'OPEN',
        failures,
        openedAt: row.opened_at ?? 0,
        resetTimeoutMs,
        failedProbes: row.failed_probes,
      };
    case 'HALF_OPEN':
      // A probe in flight did not survive the restart; the next request may probe.
      return {
        name: 'HALF_OPEN',
        failures,
        resetTimeoutMs,
        failedProbes: row.failed_probes,
        probeUntil: null,
      };
    case 'DEGRADED':
      return { name: 'DEGRADED', failures };
    default:
      return { name: 'CLOSED', failures };
  }
}

export function createResilienceRepo(db: Db): ResilienceRepo {
  const breakersStmt = db.prepare<[], BreakerRow>('SELECT * FROM breakers');
  const healthStmt = db.prepare<[], { connection_id: string; health: string }>(
    'SELECT connection_id, health FROM connection_health',
  );
  const lockoutsStmt = db.prepare<[], LockoutRow>('SELECT * FROM model_lockouts');
  const upsertBreaker = db.prepare(
    `INSERT INTO breakers (provider, state, failure_count, opened_at, reset_timeout_ms, failed_probes, history, updated_at)
     SELECT @provider, @state, @failures, @openedAt, @resetTimeoutMs, @failedProbes, @history, @now
     WHERE EXISTS (SELECT 1 FROM providers WHERE id = @provider)
     ON CONFLICT(provider) DO UPDATE SET state = excluded.state, failure_count = excluded.failure_count,
       opened_at = excluded.opened_at, reset_timeout_ms = excluded.reset_timeout_ms,
       failed_probes = excluded.failed_probes, history = excluded.history, updated_at = excluded.updated_at`,
  );
  const upsertHealth = db.prepare(
    `INSERT INTO connection_health (connection_id, health, updated_at)
     SELECT @connection, @health, @now WHERE EXISTS (SELECT 1 FROM connections WHERE id = @connection)
     ON CONFLICT(connection_id) DO UPDATE SET health = excluded.health, updated_at = excluded.updated_at`,
  );
  const deleteHealth = db.prepare<[string]>(
    'DELETE FROM connection_health WHERE connection_id = ?',
  );
  const upsertLockout = db.prepare(
    `INSERT INTO model_lockouts (key, provider, connection_id, model, subject, scope, reason, failure_count, expires_at, locked_at)
     SELECT @key, @provider, @connection, @model, @subject, @scope, @reason, @failureCount, @expiresAt, @lockedAt
     WHERE EXISTS (SELECT 1 FROM connections WHERE id = @connection)
     ON CONFLICT(key) DO UPDATE SET model = excluded.model, reason = excluded.reason,
       failure_count = excluded.failure_count, expires_at = excluded.expires_at,
       locked_at = excluded.locked_at`,
  );
  const deleteLockout = db.prepare<[string]>('DELETE FROM model_lockouts WHERE key = ?');

  const save = db.transaction((changes: ResilienceChanges, now: number) => {
    for (const [provider, snap] of changes.breakers) {
      const s = snap.state;
      upsertBreaker.run({
        provider,
        state: s.name,
        failures: s.failures,
        openedAt: s.name === 'OPEN' ? s.openedAt : null,
        resetTimeoutMs: s.name === 'OPEN' || s.name === 'HALF_OPEN' ? s.resetTimeoutMs : null,
        failedProbes: s.name === 'OPEN' || s.name === 'HALF_OPEN' ? s.failedProbes : 0,
        history: JSON.stringify(snap.history),
        now,
      });
    }
    for (const [connection, health] of changes.health) {
      if (health === null) deleteHealth.run(connection);
      else upsertHealth.run({ connection, health: JSON.stringify(health), now });
    }
    for (const [key, e] of changes.lockouts) {
      if (e === null) deleteLockout.run(key);
      else upsertLockout.run({ ...e, key, lockedAt: e.lockedAt ?? null });
    }
  });

  return {
    loadBreakers() {
      return new Map(
        breakersStmt
          .all()
          .map((row) => [
            row.provider,
            { state: breakerState(row), history: parseJson<BreakerTransition[]>(row.history, []) },
          ]),
      );
    },
    loadHealth() {
      const out = new Map<string, ConnectionHealth>();
      for (const row of healthStmt.all()) {
        const h = parseJson<ConnectionHealth | null>(row.health, null);
        if (h) out.set(row.connection_id, h);
      }
      return out;
    },
    loadLockouts() {
      return lockoutsStmt.all().map((r) => ({
        key: r.key,
        provider: r.provider,
        connection: r.connection_id,
        model: r.model,
        subject: r.subject,
        scope: r.scope,
        reason: r.reason,
        failureCount: r.failure_count,
        expiresAt: r.expires_at,
        lockedAt: r.locked_at,
      }));
    },
    save,
  };
}
