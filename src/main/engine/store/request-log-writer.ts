// The request log's batched writer: pending entries reach disk one transaction per batch, on a
// timer, or on the next turn of the event loop once a full batch waits.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import type { PendingBuffer } from './request-log-buffer';
import { insertSql, putRow, ROW_PARAMETERS } from './request-log-rows';

/** Rows per multi-row insert (SQLite allows 32 766 parameters; 24 a row). */
const ROWS_PER_INSERT = 32;

/** The highest id the table has handed out, counting deleted rows (AUTOINCREMENT). */
export function storedMaxId(db: Db): () => number {
  const stmt = db
    .prepare<[], number | null>(
      `SELECT MAX(COALESCE((SELECT MAX(id) FROM request_log), 0),
                  COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'request_log'), 0))`,
    )
    .pluck();
  return () => stmt.get() ?? 0;
}

export interface WriterOptions {
  flushIntervalMs: number;
  maxBatch: number;
  /** Runs after each batch written. */
  afterWrite: () => void;
  /** Writes what belongs to the batch's rows (their captures), in the batch's transaction. */
  withBatch: (batch: readonly RequestLogEntry[]) => void;
  report: (err: unknown) => void;
}

export interface BatchWriter {
  /** Arms a flush if entries wait: right away for a full batch, else after the interval. */
  schedule(): void;
  /** Writes batch after batch until nothing waits or a write fails. */
  drain(): void;
  /** Drains, then schedules nothing more. */
  close(): void;
  closed(): boolean;
  /** Failed batch writes so far. */
  failures(): number;
}

export function createBatchWriter(
  db: Db,
  buffer: PendingBuffer,
  maxId: () => number,
  opts: WriterOptions,
): BatchWriter {
  const { flushIntervalMs, maxBatch, afterWrite, withBatch, report } = opts;
  const insertOne = db.prepare(insertSql(1));
  const insertMany = db.prepare(insertSql(ROWS_PER_INSERT));
  const one: unknown[] = new Array(ROW_PARAMETERS);
  const many: unknown[] = new Array(ROW_PARAMETERS * ROWS_PER_INSERT);
  const writeBatch = db.transaction((batch: RequestLogEntry[]) => {
    // Another writer on the same file may have taken our ids: move ours past theirs.
    const first = batch[0];
    const stored = maxId();
    if (first && stored >= first.id) buffer.renumber(stored + 1);
    let i = 0;
    for (; i + ROWS_PER_INSERT <= batch.length; i += ROWS_PER_INSERT) {
      for (let j = 0; j < ROWS_PER_INSERT; j++) putRow(batch[i + j]!, many, j * ROW_PARAMETERS);
      insertMany.run(many);
    }
    for (; i < batch.length; i++) {
      putRow(batch[i]!, one, 0);
      insertOne.run(one);
    }
    withBatch(batch);
  });
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let failing = false;
  let stopped = false;
  let flushFailures = 0;

  /** Writes one batch; returns false when the write failed. */
  function flushBatch(): boolean {
    const count = Math.min(maxBatch, buffer.count());
    if (count === 0) return true;
    try {
      writeBatch.immediate(buffer.oldest(count));
    } catch (err) {
      failing = true;
      flushFailures++;
      report(err);
      return false;
    }
    failing = false;
    buffer.discard(count);
    afterWrite();
    return true;
  }

  function clearSchedule(): void {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
  }

  function schedule(): void {
    if (stopped || buffer.count() === 0) return;
    if (!failing && buffer.count() >= maxBatch) {
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
    while (buffer.count() > 0 && flushBatch()) {
      // one transaction per batch
    }
  }

  return {
    schedule,
    drain,
    close() {
      drain();
      stopped = true;
      clearSchedule();
    },
    closed: () => stopped,
    failures: () => flushFailures,
  };
}
