import type { ConnectionStatus } from '../../../../shared/contract';
import type { ConnectionHealth, TerminalStatus } from '../../store/state-records';

export function isTerminal(status: ConnectionStatus): status is TerminalStatus {
  return status === 'banned' || status === 'expired' || status === 'credits_exhausted';
}

export const HEALTHY: ConnectionHealth = {
  status: 'active',
  rateLimitedUntil: null,
  backoffLevel: 0,
  lastError: null,
  lastErrorType: null,
  errorCode: null,
  cooldownSetAt: null,
  refusalStreak: 0,
  authFailures: 0,
};

export const REFUSALS_TO_BAN = 3;
export const AUTH_FAILURES_TO_EXPIRE = 3;
const MAX_STATED_MS = 7 * 86_400_000;

export interface CooldownOptions {
  baseMs: number;
  capMs: number;
  disableCooling: boolean;
}

/** What a failure means for the connection (decided by the error classifier). */
export type ConnectionFailure =
  | {
      kind: 'cooldown';
      /** Duration the upstream announced (Retry-After, reset headers, text). */
      announcedMs?: number | null;
      /** Duration a rule declares; otherwise progressive backoff. */
      ruleCooldownMs?: number | null;
    }
  | { kind: 'terminal'; status: TerminalStatus }
  /** A single request refused (e.g. Anthropic OAuth 403 "Request not allowed"). */
  | { kind: 'refusal' }
  /** Credentials rejected as expired; heals itself unless it repeats. */
  | { kind: 'expired_credentials' };

export interface FailureInfo {
  failure: ConnectionFailure;
  reason: string;
  errorCode: string | null;
  message: string;
  /** When the failed request was dispatched (herd guard). */
  requestStartedAt: number;
}

export type CooldownChange =
  | { kind: 'none' }
  | { kind: 'cooldown'; until: number }
  | { kind: 'terminal'; status: TerminalStatus };

/** Promotes an expired cooldown (lazy recovery); backoffLevel stays until a success. */
export function current(h: ConnectionHealth, now: number): ConnectionHealth {
  if (h.status === 'unavailable' && h.rateLimitedUntil !== null && h.rateLimitedUntil <= now) {
    return { ...h, status: 'active', rateLimitedUntil: null };
  }
  return h;
}

export function backoffMs(level: number, opts: CooldownOptions): number {
  return Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(level, 40));
}

/** The pure transition for one failed request. Returns the new state and what changed. */
export function applyFailure(
  before: ConnectionHealth,
  info: FailureInfo,
  opts: CooldownOptions,
  now: number,
): { health: ConnectionHealth; change: CooldownChange } {
  const h = current(before, now);
  // Terminal states last until an operator or a new credential ends them.
  if (isTerminal(h.status)) return { health: h, change: { kind: 'none' } };
  const noted: ConnectionHealth = {
    ...h,
    lastError: info.message,
    lastErrorType: info.reason,
    errorCode: info.errorCode,
  };
  const f = info.failure;
  if (f.kind === 'terminal') {
    return terminal(noted, f.status);
  }
  if (f.kind === 'refusal') {
    const refusalStreak = noted.refusalStreak + 1;
    if (refusalStreak >= REFUSALS_TO_BAN) return terminal({ ...noted, refusalStreak }, 'banned');
    return cool({ ...noted, refusalStreak }, info, { kind: 'cooldown' }, opts, now);
  }
  if (f.kind === 'expired_credentials') {
    const authFailures = noted.authFailures + 1;
    if (authFailures >= AUTH_FAILURES_TO_EXPIRE)
      return terminal({ ...noted, authFailures }, 'expired');
    return cool({ ...noted, authFailures }, info, { kind: 'cooldown' }, opts, now);
  }
  return cool(noted, info, f, opts, now);
}

function terminal(
  h: ConnectionHealth,
  status: TerminalStatus,
): { health: ConnectionHealth; change: CooldownChange } {
  return { health: { ...h, status, rateLimitedUntil: null }, change: { kind: 'terminal', status } };
}

function cool(
  h: ConnectionHealth,
  info: FailureInfo,
  f: Extract<ConnectionFailure, { kind: 'cooldown' }>,
  opts: CooldownOptions,
  now: number,
): { health: ConnectionHealth; change: CooldownChange } {
  if (opts.disableCooling) return { health: h, change: { kind: 'none' } };
  const announced = f.announcedMs ?? null;
  const cooling = h.rateLimitedUntil !== null && h.rateLimitedUntil > now;
  const stale = h.cooldownSetAt !== null && info.requestStartedAt < h.cooldownSetAt;
  if (cooling || stale) {
    // Herd guard: a burst of failures from requests already in flight is one event, not N.
    // Only a longer reset announced by the upstream moves the end of the cooldown.
    const until = announced !== null ? now + announced : null;
    if (until !== null && (h.rateLimitedUntil === null || until > h.rateLimitedUntil)) {
      return {
        health: { ...h, status: 'unavailable', rateLimitedUntil: until },
        change: { kind: 'cooldown', until },
      };
    }
    return { health: h, change: { kind: 'none' } };
  }
  // The cap bounds our own backoff; what the upstream or a rule states is taken as is (an
  // announced quota reset can be hours away), within a week.
  const stated = announced ?? f.ruleCooldownMs ?? null;
  const duration =
    stated !== null
      ? Math.min(Math.max(0, stated), MAX_STATED_MS)
      : backoffMs(h.backoffLevel, opts);
  const until = now + duration;
  return {
    health: {
      ...h,
      status: 'unavailable',
      rateLimitedUntil: until,
      backoffLevel: h.backoffLevel + 1,
      cooldownSetAt: now,
    },
    change: { kind: 'cooldown', until },
  };
}

/** A success clears every error field; terminal states stay (an operator ends them). */
export function applySuccess(before: ConnectionHealth, now: number): ConnectionHealth {
  const h = current(before, now);
  if (isTerminal(h.status)) return h;
  return HEALTHY;
}

/** Operator reset or a changed credential. */
export function cleared(): ConnectionHealth {
  return HEALTHY;
}

export function isHealthy(h: ConnectionHealth): boolean {
  return (
    h.status === 'active' &&
    h.backoffLevel === 0 &&
    h.lastError === null &&
    h.refusalStreak === 0 &&
    h.authFailures === 0 &&
    h.rateLimitedUntil === null
  );
}
