// Request log: appends go to memory on the request hot path; a timer writes them in batches.
// The parts: the pending buffer, the batched writer, retention, and the readers that merge both.
//
// Ids are assigned at append time (continuing the table's AUTOINCREMENT sequence), so an entry
// has the same id before and after it reaches disk and `recent()` can merge both seamlessly.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import { createPendingBuffer } from './request-log-buffer';
import { createCaptureStore } from './request-log-captures';
import { createPruner } from './request-log-prune';
import type { RecentQuery } from './request-log-query';
import { createRecentReaders } from './request-log-recent';
import { normalize } from './request-log-rows';
import { createBatchWriter, storedMaxId } from './request-log-writer';

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

/** A row and what was captured of its call (null when nothing was). */
export interface RequestLogDetailRow {
  entry: RequestLogEntry;
  capture: unknown;
}

export interface RequestLog {
  /**
   * Buffers the entry in memory (no disk work) and returns the id it was given; a capture
   * (JSON-able) is written with it and deleted with it.
   */
  append(entry: Omit<RequestLogEntry, 'id'>, capture?: unknown): number;
  /** One row by id, with its capture; null when there is none (never logged, or pruned). */
  detail(id: number): RequestLogDetailRow | null;
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

export function createRequestLog(db: Db, opts: RequestLogOptions = {}): RequestLog {
  const now = opts.now ?? Date.now;
  const onError = opts.onError;
  const report = (err: unknown): void => {
    if (!onError) return;
    try {
      onError(err);
    } catch {
      // A failing error handler must not break the log either.
    }
  };

  const maxId = storedMaxId(db);
  const buffer = createPendingBuffer(
    Math.max(1, Math.floor(opts.maxBuffer ?? 50_000)),
    maxId() + 1,
  );
  const readers = createRecentReaders(db, buffer);
  const captures = createCaptureStore(db);
  const pruner = createPruner(db, {
    retentionDays: opts.retentionDays ?? 30,
    maxRows: Math.max(1, Math.floor(opts.maxRows ?? 200_000)),
    now,
    report,
  });
  const writer = createBatchWriter(db, buffer, maxId, {
    flushIntervalMs: Math.max(1, opts.flushIntervalMs ?? 250),
    maxBatch: Math.max(1, Math.floor(opts.maxBatch ?? 500)),
    // Pruning follows every write too, not only the idle timer.
    afterWrite: pruner.maybePrune,
    withBatch: captures.write,
    report,
  });
  let dropped = 0;

  return {
    append(input, capture) {
      if (writer.closed()) {
        dropped++;
        return 0;
      }
      const entry = normalize(input, buffer.takeId(), now);
      if (capture !== undefined && capture !== null) captures.hold(entry, capture);
      dropped += buffer.push(entry);
      writer.schedule();
      return entry.id;
    },

    flush() {
      writer.drain();
      writer.schedule();
    },

    detail(id) {
      const found = readers.byId(id);
      if (!found) return null;
      const capture = captures.get(id, found.pending ? found.entry : undefined);
      return { entry: { ...found.entry }, capture };
    },

    recent: readers.recent,
    recentEgress: readers.recentEgress,
    stats: () => ({ pending: buffer.count(), dropped, flushFailures: writer.failures() }),

    close() {
      if (writer.closed()) return;
      writer.close();
      pruner.stop();
    },
  };
}
