import type { ConnectionHealth, LockoutEntry } from '../../store/state-records';

/**
 * Whether a long connection cooldown lets one request through as a probe now (issue 29): the
 * cooldown outlasts `intervalMs` from when it was set (or from its last failed probe), and that
 * long has passed. An announced reset of hours or days may outlive the real limit; the probe
 * finds out without waiting for it. Pure; `intervalMs` 0 turns it off.
 */
export function reprobeDue(h: ConnectionHealth, intervalMs: number, now: number): boolean {
  if (intervalMs <= 0 || h.status !== 'unavailable') return false;
  if (h.rateLimitedUntil === null || h.cooldownSetAt === null) return false;
  const at = h.cooldownSetAt + intervalMs;
  return now >= at && at < h.rateLimitedUntil;
}

/** A failed probe keeps the announced end and starts the interval again. */
export function reprobeFailed(h: ConnectionHealth, now: number): ConnectionHealth {
  return h.status === 'unavailable' && h.rateLimitedUntil !== null && h.rateLimitedUntil > now
    ? { ...h, cooldownSetAt: now }
    : h;
}

/**
 * This instance's re-probe permits, one per connection: a permit runs out with its request's
 * deadline, so a probe that never settles cannot wedge the connection. In team mode the team's
 * permit (the state backend's probe) is taken as well.
 */
export class ReprobePermits {
  private readonly until = new Map<string, number>();

  taken(connection: string, now: number): boolean {
    const u = this.until.get(connection);
    return u !== undefined && u > now;
  }

  /** Takes the permit until `deadline`; the ticket releases only this permit. */
  take(connection: string, deadline: number): number {
    this.until.set(connection, deadline);
    return deadline;
  }

  release(connection: string, ticket: number): void {
    if (this.until.get(connection) === ticket) this.until.delete(connection);
  }
}

/**
 * The same for a model lockout: locked longer than `intervalMs` from when it was set (or from its
 * last failed probe), and that long has passed. A lock from before `lockedAt` was kept is not.
 */
export function lockoutReprobeDue(e: LockoutEntry, intervalMs: number, now: number): boolean {
  if (intervalMs <= 0 || e.lockedAt === undefined || e.lockedAt === null) return false;
  const at = e.lockedAt + intervalMs;
  return now >= at && at < e.expiresAt;
}
