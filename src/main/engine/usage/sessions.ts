// Agent sessions' turns so far, for `GET /api/sessions/{id}` (read by `breakwater statusline`
// several times a second while an agent works): the recent sessions in memory, fed by every
// logged request; one that is not (the gateway restarted since) is read from the usage roll-ups.

import type { SessionSummary } from '../../../shared/contract';
import type { UsageRollupRepo } from '../store';
import type { UsageSample } from './accounting';

/** Sessions kept in memory, the most recently used. */
const MAX_SESSIONS = 2_000;
/** How far back the roll-ups are read for a session not in memory. */
const LOOKBACK_MS = 7 * 86_400_000;
/** A session found nowhere is not looked up again for this long (the status line polls). */
const MISS_MS = 5_000;
const RULE = /^rule (\S+) →/;

type Turns = Omit<SessionSummary, 'quota'>;

interface QuotaWindow {
  remaining: number | null;
  limit: number | null;
  resetAt: number | null;
}

/** What a connection's upstream said of its quota (routing's Quota, the windows read here). */
export type QuotaWindows = Partial<
  Record<'fiveHour' | 'weekly' | 'tokens' | 'requests', QuotaWindow | null>
>;

/** The quota window a status line shows: the subscription windows first, then the key's own. */
const WINDOWS: ReadonlyArray<[keyof QuotaWindows, string]> = [
  ['fiveHour', '5h'],
  ['weekly', 'week'],
  ['tokens', 'tokens'],
  ['requests', 'requests'],
];

export class SessionBook {
  private readonly sessions = new Map<string, Turns>();
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly repo: Pick<UsageRollupRepo, 'session'>,
    private readonly now: () => number,
  ) {}

  /** A logged request of a session. */
  note(
    sample: UsageSample,
    row: { target: string | null; status: number; decision: string | null },
  ): void {
    if (!sample.session) return;
    const id = sample.session;
    const turns = this.sessions.get(id) ?? this.load(id) ?? empty(id);
    this.sessions.delete(id);
    this.sessions.set(id, {
      ...turns,
      combo: sample.combo || null,
      rule: row.decision ? (RULE.exec(row.decision)?.[1] ?? null) : null,
      target: row.target ?? turns.target,
      connection: sample.connection || turns.connection,
      lastAt: sample.at,
      lastStatus: row.status,
      requests: turns.requests + 1,
      inputTokens: turns.inputTokens + sample.inputTokens,
      outputTokens: turns.outputTokens + sample.outputTokens,
      costUsd: turns.costUsd + (sample.costUsd ?? 0),
    });
    this.misses.delete(id);
    if (this.sessions.size > MAX_SESSIONS) {
      this.sessions.delete(this.sessions.keys().next().value as string);
    }
  }

  /** The session's summary with its serving connection's quota; null when it made no request. */
  summary(
    id: string,
    quotaOf: (connection: string) => QuotaWindows | undefined,
  ): SessionSummary | null {
    let turns = this.sessions.get(id);
    if (!turns) {
      const missedAt = this.misses.get(id);
      if (missedAt !== undefined && this.now() - missedAt < MISS_MS) return null;
      turns = this.load(id) ?? undefined;
      if (!turns) {
        if (this.misses.size > MAX_SESSIONS) this.misses.clear();
        this.misses.set(id, this.now());
        return null;
      }
      this.sessions.set(id, turns);
    }
    const quota = turns.connection ? quotaOf(turns.connection) : undefined;
    return { ...turns, quota: quota ? quotaLeft(quota) : null };
  }

  private load(id: string): Turns | null {
    const t = this.repo.session(id, this.now() - LOOKBACK_MS);
    if (!t) return null;
    return {
      ...empty(id),
      combo: t.combo || null,
      target: t.provider ? `${t.provider}/${t.model}` : null,
      connection: t.connection || null,
      lastAt: t.lastMinute,
      requests: t.requests,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      costUsd: t.costUsd,
    };
  }
}

function empty(id: string): Turns {
  return {
    id,
    combo: null,
    rule: null,
    target: null,
    connection: null,
    lastAt: null,
    lastStatus: null,
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}

function quotaLeft(q: QuotaWindows): SessionSummary['quota'] {
  for (const [key, window] of WINDOWS) {
    const w = q[key];
    if (!w || w.remaining === null) continue;
    // The subscription windows say percent left; the others count against a limit.
    const limit = w.limit ?? (key === 'fiveHour' || key === 'weekly' ? 100 : null);
    if (!limit) continue;
    const percentLeft = Math.max(0, Math.min(100, Math.round((w.remaining / limit) * 100)));
    return { window, percentLeft, resetAt: w.resetAt };
  }
  return null;
}
