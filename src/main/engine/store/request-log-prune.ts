// Request log retention: rows past the age limit, and all but the newest `maxRows`, are deleted
// at most once a minute, after a write or (for a gateway that sits idle) on a timer.

import type { Db } from './db';

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 60_000;
/** Captured calls kept at most, the newest: each may hold a few bodies of up to 256 KB. */
export const MAX_CAPTURES = 2_000;

export interface PruneOptions {
  /** A function is read at each prune, so a changed setting applies without a restart. */
  retentionDays: number | (() => number);
  maxRows: number;
  now: () => number;
  report: (err: unknown) => void;
}

export interface Pruner {
  /** Prunes unless the last prune was under a minute ago. Never throws; failures are reported. */
  maybePrune(): void;
  /** Stops the idle timer. */
  stop(): void;
}

export function createPruner(db: Db, opts: PruneOptions): Pruner {
  const { retentionDays, maxRows, now, report } = opts;
  const retentionMs = () =>
    (typeof retentionDays === 'function' ? retentionDays() : retentionDays) * DAY_MS;
  const pruneAgeStmt = db.prepare<[number]>('DELETE FROM request_log WHERE at < ?');
  const pruneCountStmt = db.prepare<[number]>(
    `DELETE FROM request_log WHERE id <= (
       SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ?
     )`,
  );
  // Captures of pruned rows go with them (ON DELETE CASCADE); beyond that only the newest stay.
  const pruneCapturesStmt = db.prepare<[number]>(
    `DELETE FROM request_captures WHERE log_id <= (
       SELECT log_id FROM request_captures ORDER BY log_id DESC LIMIT 1 OFFSET ?
     )`,
  );
  const prune = db.transaction((cutoff: number) => {
    pruneAgeStmt.run(cutoff);
    pruneCountStmt.run(maxRows);
    pruneCapturesStmt.run(MAX_CAPTURES);
  });
  let lastPruneAt = Number.NEGATIVE_INFINITY;

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

  const idlePrune = setInterval(() => maybePrune(), PRUNE_EVERY_MS);
  idlePrune.unref();
  return { maybePrune, stop: () => clearInterval(idlePrune) };
}
