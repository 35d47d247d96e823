// The dashboard's state, how snapshots and log reads seed it, and the views derived from it
// (`apply-event.ts` folds engine events in). No React, no bridge: unit-tested under plain Node.

import type { RequestLogEntry, Snapshot } from '../../../shared/contract';

/** Request-rate chart: fixed buckets so the bars never reflow. */
export const RATE_BUCKET_MS = 10_000;
export const RATE_BUCKETS = 60;
/** Request rows kept in memory for the live log. */
export const MAX_RECENT = 500;
/** Resilience events kept for the activity feed. */
export const MAX_ACTIVITY = 100;

export interface RateBucket {
  /** Start of the bucket (engine clock). */
  start: number;
  requests: number;
  errors: number;
}

export interface Activity {
  /** Increasing per page load: a stable list key. */
  seq: number;
  at: number;
  tone: 'ok' | 'warn' | 'bad' | 'idle';
  text: string;
}

export interface DashboardModel {
  snapshot: Snapshot | null;
  /** Local clock minus engine clock at the last snapshot (engine time = Date.now() − skew). */
  skew: number;
  /** Bucketed request/error counts for the chart, oldest first. */
  rate: RateBucket[];
  /** Newest first. */
  recent: RequestLogEntry[];
  activity: Activity[];
  /**
   * How many configuration changes the engine has reported since the page loaded: pages that
   * list configuration reload when it moves, whoever made the change (another tab, the API).
   */
  configVersion: number;
}

export const emptyModel: DashboardModel = {
  snapshot: null,
  skew: 0,
  rate: [],
  recent: [],
  activity: [],
  configVersion: 0,
};

/** Places `entry` in its bucket; buckets older than the window fall off. */
export function addToRate(rate: RateBucket[], at: number, isError: boolean): RateBucket[] {
  const start = Math.floor(at / RATE_BUCKET_MS) * RATE_BUCKET_MS;
  const next = rate.slice();
  const last = next[next.length - 1];
  if (last && last.start === start) {
    next[next.length - 1] = {
      start,
      requests: last.requests + 1,
      errors: last.errors + (isError ? 1 : 0),
    };
  } else {
    const existing = next.findIndex((b) => b.start === start);
    if (existing !== -1) {
      const b = next[existing]!;
      next[existing] = { start, requests: b.requests + 1, errors: b.errors + (isError ? 1 : 0) };
    } else {
      next.push({ start, requests: 1, errors: isError ? 1 : 0 });
      next.sort((a, b) => a.start - b.start);
    }
  }
  const cutoff = Math.max(...next.map((b) => b.start)) - (RATE_BUCKETS - 1) * RATE_BUCKET_MS;
  return next.filter((b) => b.start >= cutoff);
}

/** Rate buckets for a window ending at `now`, with zeros where nothing happened. */
export function rateWindow(rate: RateBucket[], now: number): RateBucket[] {
  const endStart = Math.floor(now / RATE_BUCKET_MS) * RATE_BUCKET_MS;
  const byStart = new Map(rate.map((b) => [b.start, b]));
  const out: RateBucket[] = [];
  for (let i = RATE_BUCKETS - 1; i >= 0; i--) {
    const start = endStart - i * RATE_BUCKET_MS;
    out.push(byStart.get(start) ?? { start, requests: 0, errors: 0 });
  }
  return out;
}

export function isErrorStatus(status: number): boolean {
  return status >= 400 || status === 0;
}

/** Replaces the snapshot (and the clock skew estimate) from a fresh read. */
export function applySnapshot(model: DashboardModel, snapshot: Snapshot, localNow: number) {
  return { ...model, snapshot, skew: localNow - snapshot.at };
}

/** Seeds the log and the chart from `getLogs` (newest first), keeping live rows already seen. */
export function applyLogs(model: DashboardModel, rows: RequestLogEntry[]): DashboardModel {
  const seen = new Set(model.recent.map((r) => r.id));
  const merged = [...model.recent, ...rows.filter((r) => !seen.has(r.id))]
    .sort((a, b) => b.id - a.id)
    .slice(0, MAX_RECENT);
  let rate: RateBucket[] = [];
  for (const r of merged) rate = addToRate(rate, r.at, isErrorStatus(r.status));
  return { ...model, recent: merged, rate };
}

// ---------------------------------------------------------------------------
// Derived views
// ---------------------------------------------------------------------------

/** When the earliest timer in the snapshot runs out (engine clock), for a lazy refetch. */
export function nextDeadline(snapshot: Snapshot): number | null {
  const times: number[] = [];
  for (const b of snapshot.breakers) {
    if (b.state === 'OPEN' && b.retryAfterMs > 0) times.push(snapshot.at + b.retryAfterMs);
  }
  for (const c of snapshot.connections) {
    if (c.rateLimitedUntil && c.rateLimitedUntil > snapshot.at) times.push(c.rateLimitedUntil);
  }
  for (const l of snapshot.lockouts) if (l.expiresAt > snapshot.at) times.push(l.expiresAt);
  for (const l of snapshot.leases) if (l.expiresAt > snapshot.at) times.push(l.expiresAt);
  for (const w of snapshot.quotaWaits ?? []) if (w.until > snapshot.at) times.push(w.until);
  return times.length > 0 ? Math.min(...times) : null;
}

export type Level = 'ok' | 'warn' | 'bad' | 'idle';

/** What the dashboard and the tray say while the team's Redis is unreachable (issue 16). */
export const TEAM_UNAVAILABLE = 'team state unavailable';

export function teamDegraded(snapshot: Snapshot): boolean {
  return snapshot.team?.status === 'degraded';
}

export interface Incident {
  key: string;
  level: Level;
  title: string;
  detail: string;
  /** Engine time when this clears by itself, if it does. */
  until: number | null;
}

/** Connection states that do not clear by themselves: they need the operator. */
export const TERMINAL = new Set(['banned', 'expired', 'credits_exhausted']);

/** What is wrong right now, worst first. */
export function incidents(snapshot: Snapshot): Incident[] {
  const out: Incident[] = [];
  if (snapshot.gateway.paused) {
    out.push({
      key: 'paused',
      level: 'warn',
      title: 'Gateway paused',
      detail: 'Agents get 503 until you resume.',
      until: null,
    });
  }
  if (teamDegraded(snapshot)) {
    out.push({
      key: 'team',
      level: 'warn',
      title: TEAM_UNAVAILABLE,
      detail: 'Redis is unreachable: serving on local state; it resynchronises when Redis is back.',
      until: null,
    });
  }
  for (const b of snapshot.breakers) {
    if (b.state === 'CLOSED') continue;
    const last = b.history[b.history.length - 1];
    out.push({
      key: `breaker:${b.provider}`,
      level: b.state === 'OPEN' ? 'bad' : 'warn',
      title: `${b.provider}: circuit ${b.state.replace('_', '-')}`,
      detail:
        b.state === 'OPEN'
          ? `Requests skip ${b.provider}${last?.cause ? `; last cause: ${last.cause}` : ''}.`
          : b.state === 'HALF_OPEN'
            ? 'One probe request is allowed through.'
            : `${b.failureCount} recent failures; still serving.`,
      until: b.state === 'OPEN' ? snapshot.at + b.retryAfterMs : null,
    });
  }
  for (const c of snapshot.connections) {
    if (TERMINAL.has(c.status)) {
      out.push({
        key: `conn:${c.id}`,
        level: 'bad',
        title: `${c.provider}/${c.id}: ${c.status.replace('_', ' ')}`,
        detail: `Needs you: change the credential or clear the state.${c.lastError ? ` ${c.lastError}` : ''}`,
        until: null,
      });
    } else if (c.rateLimitedUntil && c.rateLimitedUntil > snapshot.at) {
      out.push({
        key: `conn:${c.id}`,
        level: 'warn',
        title: `${c.provider}/${c.id}: cooling down`,
        detail: c.lastError ?? `backoff level ${c.backoffLevel}`,
        until: c.rateLimitedUntil,
      });
    }
  }
  for (const l of snapshot.lockouts) {
    if (l.expiresAt <= snapshot.at) continue;
    out.push({
      key: `lock:${l.provider}:${l.connection}:${l.model}`,
      level: 'warn',
      title: `${l.provider}/${l.connection}/${l.model}: locked out`,
      detail: l.reason,
      until: l.expiresAt,
    });
  }
  const rank: Record<Level, number> = { bad: 0, warn: 1, idle: 2, ok: 3 };
  return out.sort((a, b) => rank[a.level] - rank[b.level]);
}
