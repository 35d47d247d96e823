// The captured calls of request log rows (`requestLog.captureBodies`): held beside their entry
// while it waits in memory, written as JSON in the entry's own batch, read back by row id.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import { parseJson } from './json';

export interface CaptureStore {
  /** Keeps the entry's capture until the entry is written (or dropped with it). */
  hold(entry: RequestLogEntry, capture: unknown): void;
  /** Inserts the captures of the batch's entries; runs inside the batch's transaction. */
  write(batch: readonly RequestLogEntry[]): void;
  /** The capture of a row: the pending entry's when it still waits, else the stored one. */
  get(id: number, pending: RequestLogEntry | undefined): unknown;
}

export function createCaptureStore(db: Db): CaptureStore {
  // Keyed by the entry object, whose id may still change (renumbering after another writer).
  const held = new WeakMap<RequestLogEntry, unknown>();
  const insert = db.prepare<[number, string]>(
    'INSERT OR REPLACE INTO request_captures (log_id, capture) VALUES (?, ?)',
  );
  const select = db
    .prepare<[number], string>('SELECT capture FROM request_captures WHERE log_id = ?')
    .pluck();
  return {
    hold: (entry, capture) => held.set(entry, capture),
    write(batch) {
      for (const e of batch) {
        const capture = held.get(e);
        if (capture === undefined) continue;
        insert.run(e.id, JSON.stringify(capture));
        held.delete(e);
      }
    },
    get(id, pending) {
      if (pending) return held.get(pending) ?? null;
      const text = select.get(id);
      return text === undefined ? null : parseJson<unknown>(text, null);
    },
  };
}
