/** What keeps one candidate from serving, as the quota wait sees it. */
export interface Obstacle {
  /** Why it is passed over (`unavailable`, `model_lockout`, `circuit_open`, …), or `open`. */
  reason: string;
  /** When it ends by itself; null when only an operator (or nothing known) ends it. */
  retryAfterMs: number | null;
  /** For a cooling connection: the error type that cooled it. */
  errorType: string | null;
  /** Who the client waits for: a connection id, or a provider id for its circuit. */
  subject: string;
}

export type QuotaWaitDecision =
  | { kind: 'wait'; waitMs: number; obstacle: Obstacle }
  | { kind: 'refuse'; retryAfterMs: number; obstacle: Obstacle }
  | { kind: 'none' };

export interface QuotaWaitInput {
  /** `quotaWait.maxWaitMs`; 0 turns the wait off. */
  maxWaitMs: number;
  /** One per candidate that could ever serve the request (request-shape misfits left out). */
  obstacles: readonly Obstacle[];
  /** When this request began its first quota wait, or null: the bound counts from there. */
  waitingSince: number | null;
  now: number;
}

/** Cooldown causes a wait is worth it for: a reset that comes by itself. */
const TIMED_COOLDOWNS: ReadonlySet<string> = new Set(['quota_exhausted', 'rate_limit_exceeded']);

function waitable(o: Obstacle): boolean {
  if (o.retryAfterMs === null) return false;
  switch (o.reason) {
    case 'model_lockout':
    case 'circuit_open':
    case 'provider_cooldown':
      return true;
    case 'unavailable':
      return o.errorType !== null && TIMED_COOLDOWNS.has(o.errorType);
    default:
      return false;
  }
}

/**
 * The quota wait (issue 29): when nothing can serve and every obstacle ends by itself, wait for
 * the earliest end if it comes within `maxWaitMs` of the first wait, else refuse with that end as
 * the real Retry-After. Anything that does not end by itself (a terminal connection, a network
 * failure, a free candidate that failed) means no decision here. Pure.
 */
export function decideQuotaWait(input: QuotaWaitInput): QuotaWaitDecision {
  const { obstacles, maxWaitMs, now } = input;
  if (maxWaitMs <= 0 || obstacles.length === 0 || !obstacles.every(waitable)) return NONE;
  let earliest = obstacles[0]!;
  for (const o of obstacles) if (o.retryAfterMs! < earliest.retryAfterMs!) earliest = o;
  const waitMs = Math.max(0, earliest.retryAfterMs!);
  const deadline = (input.waitingSince ?? now) + maxWaitMs;
  if (now + waitMs > deadline) return { kind: 'refuse', retryAfterMs: waitMs, obstacle: earliest };
  return { kind: 'wait', waitMs, obstacle: earliest };
}

const NONE: QuotaWaitDecision = Object.freeze({ kind: 'none' });

/** How the decision header and the log name what was waited for. */
export function waitedFor(o: Obstacle): string {
  if (o.reason === 'circuit_open') return `${o.subject}'s circuit to half-open`;
  if (o.reason === 'provider_cooldown') return `${o.subject}'s provider cooldown`;
  return `${o.subject}'s quota reset`;
}
