import type { EngineEvent } from '../../../../shared/contract';
import type { Logger } from '../../logger';
import type { Candidate } from '../../routing/resolve';
import type { StateBackend } from '../../state/backend';
import type { ConnectionHealth, LockoutEntry } from '../../store/state-records';
import type { Exclusion, Reprobe } from './exclusion';
import { lockoutView } from './model-lockout';
import { ReprobePermits, reprobeFailed } from './reprobe';
import type { ResilienceState } from './resilience-state';

interface Permit {
  /** This instance's permit. */
  local: number;
  /** The team's permit (team mode), once taken. */
  shared: string | null;
}

/** The re-probes one attempt is: of its connection's long cooldown, of its model's long lockout. */
export interface ReprobeTicket {
  connection: (Permit & { id: string }) | null;
  lockout: (Permit & { key: string }) | null;
}

export interface ReprobeGateDeps {
  state: ResilienceState;
  shared: StateBackend;
  /** `cooldown.reprobeAfterMs`. */
  intervalMs(): number;
  emit(event: EngineEvent): void;
  log: Logger;
}

/**
 * Re-probing long cooldowns and lockouts (issue 29): a cooldown or lockout announced for longer
 * than `cooldown.reprobeAfterMs` lets one real request through once that interval has passed,
 * like a half-open circuit. One probe per connection (per lockout key) at a time, across a team
 * too; a success ends it ahead of the announced end, a failure keeps that end and restarts the
 * interval. The exclusion reads `view`; the admission takes the permits here.
 */
export class ReprobeGate {
  private readonly connections = new ReprobePermits();
  private readonly lockouts = new ReprobePermits();
  readonly view: Reprobe;

  constructor(private readonly deps: ReprobeGateDeps) {
    this.view = {
      get intervalMs() {
        return deps.intervalMs();
      },
      permits: this.connections,
      lockoutPermits: this.lockouts,
    };
  }

  /**
   * The re-probes an admitted candidate is, with this instance's permits taken; an exclusion when
   * another request took one since the exclusion let this one through. Null when it is none.
   */
  take(c: Candidate, now: number, deadline: number): ReprobeTicket | Exclusion | null {
    const { state } = this.deps;
    const id = c.connection.id;
    let connection: ReprobeTicket['connection'] = null;
    if (state.hasHealth(id)) {
      const h = state.storedHealth(id);
      if (h.status === 'unavailable' && h.rateLimitedUntil !== null && h.rateLimitedUntil > now) {
        if (this.connections.taken(id, now)) return stillCooling(id, h.rateLimitedUntil - now);
        connection = { id, local: this.connections.take(id, deadline), shared: null };
      }
    }
    const lock = this.lockOf(c, now);
    if (lock === null) return connection ? { connection, lockout: null } : null;
    if (this.lockouts.taken(lock.key, now)) {
      if (connection) this.connections.release(id, connection.local);
      return stillLocked(lock, now);
    }
    const lockout = { key: lock.key, local: this.lockouts.take(lock.key, deadline), shared: null };
    return { connection, lockout };
  }

  /** Team mode: the team's permits as well; an exclusion when another instance has one out. */
  async takeShared(
    ticket: ReprobeTicket,
    now: number,
    deadline: number,
  ): Promise<Exclusion | null> {
    const { shared, state } = this.deps;
    const c = ticket.connection;
    if (c) {
      c.shared = await shared.probe(`reprobe:${c.id}`, deadline - now);
      if (c.shared === null) {
        const until = state.storedHealth(c.id).rateLimitedUntil ?? now;
        return stillCooling(c.id, Math.max(0, until - now));
      }
    }
    const l = ticket.lockout;
    if (l) {
      l.shared = await shared.probe(`reprobe-lockout:${l.key}`, deadline - now);
      const lock = state.lockouts.get(l.key);
      if (l.shared === null && lock) return stillLocked(lock, now);
    }
    return null;
  }

  /** Gives the permits back: the probe's outcome, if any, is in the state by now. */
  release(ticket: ReprobeTicket): void {
    const { connection: c, lockout: l } = ticket;
    if (c) {
      this.connections.release(c.id, c.local);
      if (c.shared !== null) this.deps.shared.releaseProbe(`reprobe:${c.id}`, c.shared);
    }
    if (l) {
      this.lockouts.release(l.key, l.local);
      if (l.shared !== null) this.deps.shared.releaseProbe(`reprobe-lockout:${l.key}`, l.shared);
    }
  }

  /**
   * A success of a candidate whose lockout was being re-probed: every lock covering it ends now,
   * ahead of its announced end (the connection's own recovery is the success's rule).
   */
  succeeded(c: Candidate, now: number): void {
    const { state } = this.deps;
    let lock = this.lockOf(c, now);
    if (lock === null || !this.lockouts.taken(lock.key, now)) return;
    while (lock !== null) {
      state.lockouts.remove(lock.key);
      state.markLockout(lock.key, null);
      this.deps.emit({
        type: 'lockout.cleared',
        at: now,
        lockout: lockoutView(lock),
        cause: `re-probe succeeded ahead of the announced end at ${new Date(lock.expiresAt).toISOString()}`,
      });
      lock = this.lockOf(c, now);
    }
  }

  /** A failed re-probe keeps the announced end and starts the interval again. */
  failed(c: Candidate, now: number): void {
    const { state, log } = this.deps;
    const next = `next probe in ${Math.round(this.deps.intervalMs() / 1000)} s`;
    const id = c.connection.id;
    if (this.connections.taken(id, now)) {
      const before = state.storedHealth(id);
      const after = reprobeFailed(before, now);
      if (after !== before) {
        state.setHealth(id, after);
        log.info(
          `connection ${id}: re-probe failed; cooling until ${new Date(after.rateLimitedUntil!).toISOString()} as announced, ${next}`,
        );
      }
    }
    const lock = this.lockOf(c, now);
    if (lock === null || !this.lockouts.taken(lock.key, now) || lock.lockedAt === now) return;
    state.putLockout({ ...lock, lockedAt: now });
    log.info(
      `lockout ${lock.key}: re-probe failed; locked until ${new Date(lock.expiresAt).toISOString()} as announced, ${next}`,
    );
  }

  /** The lock in force on this candidate with the latest end (nothing to build when none is). */
  private lockOf(c: Candidate, now: number): LockoutEntry | null {
    const p = c.target.provider;
    return this.deps.state.lockouts.check(
      p.id,
      c.connection.id,
      c.target.model,
      p.options?.quotaFamilies ?? {},
      now,
    );
  }
}

/** Why a success ended a connection's trouble: a re-probe ahead of its announced reset, or not. */
export function successCause(before: ConnectionHealth, now: number): string {
  const until = before.status === 'unavailable' ? before.rateLimitedUntil : null;
  return until !== null && until > now
    ? `re-probe succeeded ahead of the announced reset at ${new Date(until).toISOString()}`
    : 'request succeeded';
}

function stillCooling(connection: string, retryAfterMs: number): Exclusion {
  return {
    reason: 'unavailable',
    retryAfterMs,
    detail: `connection ${connection} is cooling down (its re-probe is out)`,
  };
}

function stillLocked(lock: LockoutEntry, now: number): Exclusion {
  return {
    reason: 'model_lockout',
    retryAfterMs: lock.expiresAt - now,
    detail: `${lock.subject} is locked on ${lock.connection} (its re-probe is out)`,
  };
}
