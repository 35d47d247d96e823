// Agent sessions' turns so far, for `GET /api/sessions/{id}` (read by `breakwater statusline`
// several times a second while an agent works): the recent sessions in memory, fed by every
// logged request; one that is not (the gateway restarted since) is read from the usage roll-ups.

import type { SessionSummary } from '../../../shared/contract';
import type { BoundedMap, BoundedMaps } from '../bounded-map';
import type { SessionTotals, UsageRollupRepo } from '../store';
import type { UsageSample } from './accounting';

/** Sessions kept in memory, the most recently used. */
const MAX_SESSIONS = 2_000;
/** A session idle this long leaves memory (its roll-ups stay). */
const IDLE_MS = 86_400_000;
/** How far back the roll-ups are read for a session not in memory. */
const LOOKBACK_MS = 7 * 86_400_000;
/** A session found nowhere is not looked up again for this long (the status line polls). */
const MISS_MS = 5_000;
const MINUTE_MS = 60_000;
const RULE = /^rule (\S+) →/;

type Turns = Omit<SessionSummary, 'quota'>;

interface Book extends Turns {
  /**
   * The first roll-up minute this process counted, while the earlier minutes (a session that
   * outlived a restart, or left memory) are not yet read; null once they are. Reading them
   * waits for a summary, so a request never waits on the disk.
   */
  unreadBefore: number | null;
}

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
  private readonly sessions: BoundedMap<string, Book>;
  private readonly misses: BoundedMap<string, true>;

  constructor(
    private readonly repo: Pick<UsageRollupRepo, 'session'>,
    private readonly now: () => number,
    maps: BoundedMaps,
  ) {
    this.sessions = maps.create({
      name: 'agent_sessions',
      maxEntries: MAX_SESSIONS,
      ttlMs: () => IDLE_MS,
    });
    this.misses = maps.create({
      name: 'agent_session_misses',
      maxEntries: MAX_SESSIONS,
      ttlMs: () => MISS_MS,
    });
  }

  /** A logged request of a session: memory only, on the request path. */
  note(
    sample: UsageSample,
    row: { target: string | null; status: number; decision: string | null },
  ): void {
    if (!sample.session) return;
    const id = sample.session;
    const now = this.now();
    // Updated in place: one allocation per session, not one per request.
    const book = this.sessions.get(id, now) ?? {
      ...empty(id),
      unreadBefore: sample.at - (sample.at % MINUTE_MS),
    };
    book.combo = sample.combo || null;
    book.rule = row.decision ? (RULE.exec(row.decision)?.[1] ?? null) : null;
    book.target = row.target ?? book.target;
    book.connection = sample.connection || book.connection;
    book.lastAt = sample.at;
    book.lastStatus = row.status;
    book.requests++;
    book.inputTokens += sample.inputTokens;
    book.outputTokens += sample.outputTokens;
    book.costUsd += sample.costUsd ?? 0;
    this.sessions.set(id, book, now);
    this.misses.delete(id);
  }

  /** The session's summary with its serving connection's quota; null when it made no request. */
  summary(
    id: string,
    quotaOf: (connection: string) => QuotaWindows | undefined,
  ): SessionSummary | null {
    const now = this.now();
    let book = this.sessions.get(id, now);
    if (book?.unreadBefore != null) {
      book = withHistory(book, this.repo.session(id, now - LOOKBACK_MS, book.unreadBefore));
      this.sessions.set(id, book, now);
    } else if (!book) {
      if (this.misses.get(id, now)) return null;
      const totals = this.repo.session(id, now - LOOKBACK_MS);
      if (!totals) {
        this.misses.set(id, true, now);
        return null;
      }
      book = withHistory({ ...empty(id), unreadBefore: null }, totals);
      this.sessions.set(id, book, now);
    }
    const { unreadBefore: _unread, ...turns } = book;
    const quota = turns.connection ? quotaOf(turns.connection) : undefined;
    return { ...turns, quota: quota ? quotaLeft(quota) : null };
  }
}

/** Adds the roll-ups' earlier turns; what this process saw since stays the latest. */
function withHistory(book: Book, t: SessionTotals | null): Book {
  if (!t) return { ...book, unreadBefore: null };
  return {
    ...book,
    unreadBefore: null,
    combo: book.combo ?? (t.combo || null),
    target: book.target ?? (t.provider ? `${t.provider}/${t.model}` : null),
    connection: book.connection ?? (t.connection || null),
    lastAt: book.lastAt ?? t.lastMinute,
    requests: book.requests + t.requests,
    inputTokens: book.inputTokens + t.inputTokens,
    outputTokens: book.outputTokens + t.outputTokens,
    costUsd: book.costUsd + t.costUsd,
  };
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
