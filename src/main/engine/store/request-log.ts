// Request log: appends go to memory on the request hot path; a timer writes them in batches.
//
// Ids are assigned at append time (continuing the table's AUTOINCREMENT sequence), so an entry
// has the same id before and after it reaches disk and `recent()` can merge both seamlessly.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import { clampLimit, createLogReader, matches, type RecentQuery } from './request-log-query';
import { INSERT_SQL, normalize, rowValues } from './request-log-rows';

export type { RecentQuery } from './request-log-query';

export interface RequestLogOptions {
  /** How long an appended entry may wait in memory before a flush (default 250). */
  flushIntervalMs?: number;
  /**
   * Entries per write transaction; reaching it schedules a flush right away (default 500). A
   * flush holds the event loop for 4-8 µs a row, but each commit also costs a few page writes:
   * 64-row transactions made a row 30 % dearer, and put a short stall behind 1 request in 64
   * (inside a p99) instead of a longer one behind 1 in 500.
   */
  maxBatch?: number;
  /** Rows older than this are pruned (default 30); a function is read at each prune, so a
   *  changed setting applies without a restart. */
  retentionDays?: number | (() => number);
  /** Only the newest this many rows are kept (default 200 000). */
  maxRows?: number;
  /** Entries kept in memory while flushing fails; the oldest are dropped beyond it (default 50 000). */
  maxBuffer?: number;
  now?: () => number;
  /** Flush and prune failures end up here, never in the caller of append/flush/close. */
  onError?: (err: unknown) => void;
}

export interface RequestLogStats {
  /** Entries waiting in memory. */
  pending: number;
  /** Entries dropped because the buffer was full (flushing failing) or appended after close. */
  dropped: number;
  /** Failed flush attempts so far. */
  flushFailures: number;
}

export interface RequestLog {
  /** Buffers the entry in memory (no disk work) and returns the id it was given. */
  append(entry: Omit<RequestLogEntry, 'id'>): number;
  /** Writes everything pending now. Never throws; failures go to `onError`. */
  flush(): void;
  /** Newest first, including entries not yet written. */
  recent(query: RecentQuery): RequestLogEntry[];
  /** Most recent egress IP seen for `connection` in an entry at or after `sinceMs` (epoch ms). */
  recentEgress(connection: string, sinceMs: number): string | null;
  stats(): RequestLogStats;
  /** Stops the timer and flushes everything. Idempotent; later appends are dropped. */
  close(): void;
}

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 60_000;

export function createRequestLog(db: Db, opts: RequestLogOptions = {}): RequestLog {
  const flushIntervalMs = Math.max(1, opts.flushIntervalMs ?? 250);
  const maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? 500));
  const retention = opts.retentionDays ?? 30;
  const retentionMs = () => (typeof retention === 'function' ? retention() : retention) * DAY_MS;
  const maxRows = Math.max(1, Math.floor(opts.maxRows ?? 200_000));
  const maxBuffer = Math.max(1, Math.floor(opts.maxBuffer ?? 50_000));
  const now = opts.now ?? Date.now;
  const onError = opts.onError;

  const insertStmt = db.prepare(INSERT_SQL);
  const maxIdStmt = db
    .prepare<[], number | null>(
      `SELECT MAX(COALESCE((SELECT MAX(id) FROM request_log), 0),
                  COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'request_log'), 0))`,
    )
    .pluck();
  const pruneAgeStmt = db.prepare<[number]>('DELETE FROM request_log WHERE at < ?');
  const pruneCountStmt = db.prepare<[number]>(
    `DELETE FROM request_log WHERE id <= (
       SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ?
     )`,
  );
  const reader = createLogReader(db);

  // Pending entries live in `pending[head..]`; dropping the oldest just advances `head`.
  let pending: (RequestLogEntry | undefined)[] = [];
  let head = 0;
  let nextId = (maxIdStmt.get() ?? 0) + 1;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let failing = false;
  let closed = false;
  let dropped = 0;
  let flushFailures = 0;
  let lastPruneAt = Number.NEGATIVE_INFINITY;
  // Pruning also follows every write; this timer covers a gateway that sits idle.
  const idlePrune = setInterval(() => maybePrune(), PRUNE_EVERY_MS);
  idlePrune.unref();

  const pendingCount = () => pending.length - head;

  const writeBatch = db.transaction((batch: RequestLogEntry[]) => {
    // Another writer on the same file may have taken our ids: move ours past theirs.
    const first = batch[0];
    const maxId = maxIdStmt.get() ?? 0;
    if (first && maxId >= first.id) renumberPending(maxId + 1);
    for (const e of batch) insertStmt.run(rowValues(e));
  });

  const prune = db.transaction((cutoff: number) => {
    pruneAgeStmt.run(cutoff);
    pruneCountStmt.run(maxRows);
  });

  function renumberPending(from: number): void {
    let id = from;
    for (let i = head; i < pending.length; i++) {
      const entry = pending[i];
      if (entry) entry.id = id++;
    }
    nextId = id;
  }

  function report(err: unknown): void {
    if (!onError) return;
    try {
      onError(err);
    } catch {
      // A failing error handler must not break the log either.
    }
  }

  function compact(): void {
    if (head === 0) return;
    if (head === pending.length) {
      pending = [];
      head = 0;
    } else if (head > 1024 && head * 2 > pending.length) {
      pending = pending.slice(head);
      head = 0;
    }
  }

  /** Writes one batch; returns false when the write failed. */
  function flushBatch(): boolean {
    const count = Math.min(maxBatch, pendingCount());
    if (count === 0) return true;
    const batch = pending.slice(head, head + count) as RequestLogEntry[];
    try {
      writeBatch.immediate(batch);
    } catch (err) {
      failing = true;
      flushFailures++;
      report(err);
      return false;
    }
    failing = false;
    for (let i = head; i < head + count; i++) pending[i] = undefined;
    head += count;
    compact();
    maybePrune();
    return true;
  }

  function maybePrune(): void {
    const t = now();
    if (t - lastPruneAt < PRUNE_EVERY_MS) return;
    lastPruneAt = t;
    try {
      prune.immediate(t - retentionMs());
    } catch (err) {
      report(err);
    }
  }

  function clearSchedule(): void {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
  }

  function schedule(): void {
    if (closed || pendingCount() === 0) return;
    if (!failing && pendingCount() >= maxBatch) {
      if (!immediate) {
        immediate = setImmediate(tick);
        immediate.unref();
      }
    } else if (!timer && !immediate) {
      timer = setTimeout(tick, flushIntervalMs);
      timer.unref();
    }
  }

  function tick(): void {
    clearSchedule();
    flushBatch();
    schedule();
  }

  function drain(): void {
    clearSchedule();
    while (pendingCount() > 0 && flushBatch()) {
      // one transaction per batch
    }
  }

  return {
    append(input) {
      if (closed) {
        dropped++;
        return 0;
      }
      const entry = normalize(input, nextId++, now);
      pending.push(entry);
      if (pendingCount() > maxBuffer) {
        const excess = pendingCount() - maxBuffer;
        for (let i = 0; i < excess; i++) pending[head + i] = undefined;
        head += excess;
        dropped += excess;
        compact();
      }
      schedule();
      return entry.id;
    },

    flush() {
      drain();
      schedule();
    },

    recent(query) {
      const limit = clampLimit(query.limit);
      const fromMemory: RequestLogEntry[] = [];
      for (let i = pending.length - 1; i >= head && fromMemory.length < limit; i--) {
        const entry = pending[i];
        if (entry && matches(entry, query)) fromMemory.push({ ...entry });
      }
      const fromDisk = reader.recent(query, limit);
      const seen = new Set(fromMemory.map((e) => e.id));
      return fromMemory
        .concat(fromDisk.filter((e) => !seen.has(e.id)))
        .sort((a, b) => b.id - a.id)
        .slice(0, limit);
    },

    recentEgress(connection, sinceMs) {
      let best: { ip: string; at: number } | null = null;
      for (let i = head; i < pending.length; i++) {
        const entry = pending[i];
        if (!entry || entry.connection !== connection || entry.egressIp === null) continue;
        if (entry.at < sinceMs) continue;
        if (!best || entry.at >= best.at) best = { ip: entry.egressIp, at: entry.at };
      }
      const row = reader.egress(connection, sinceMs);
      if (row && (!best || row.at > best.at)) return row.ip;
      return best ? best.ip : null;
    },

    stats: () => ({ pending: pendingCount(), dropped, flushFailures }),

    close() {
      if (closed) return;
      drain();
      closed = true;
      clearInterval(idlePrune);
      clearSchedule();
    },
  };
}
