// Reading the request log across memory and disk: an entry keeps its id when it is written, so
// the two sources merge by id.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import type { PendingBuffer } from './request-log-buffer';
import { clampLimit, createLogReader, matches, type RecentQuery } from './request-log-query';

export interface RecentReaders {
  recent(query: RecentQuery): RequestLogEntry[];
  recentEgress(connection: string, sinceMs: number): string | null;
  /** The entry with this id, and whether it still waits in memory (then it is that object). */
  byId(id: number): { entry: RequestLogEntry; pending: boolean } | null;
}

export function createRecentReaders(db: Db, buffer: PendingBuffer): RecentReaders {
  const reader = createLogReader(db);
  return {
    recent(query) {
      const limit = clampLimit(query.limit);
      const fromMemory: RequestLogEntry[] = [];
      for (let i = buffer.count() - 1; i >= 0 && fromMemory.length < limit; i--) {
        const entry = buffer.at(i);
        if (entry && matches(entry, query)) fromMemory.push({ ...entry });
      }
      const fromDisk = reader.recent(query, limit);
      const seen = new Set(fromMemory.map((e) => e.id));
      return fromMemory
        .concat(fromDisk.filter((e) => !seen.has(e.id)))
        .sort((a, b) => b.id - a.id)
        .slice(0, limit);
    },

    byId(id) {
      for (let i = buffer.count() - 1; i >= 0; i--) {
        const entry = buffer.at(i);
        if (entry?.id === id) return { entry, pending: true };
      }
      const entry = reader.byId(id);
      return entry ? { entry, pending: false } : null;
    },

    recentEgress(connection, sinceMs) {
      let best: { ip: string; at: number } | null = null;
      for (let i = 0; i < buffer.count(); i++) {
        const entry = buffer.at(i);
        if (!entry || entry.connection !== connection || entry.egressIp === null) continue;
        if (entry.at < sinceMs) continue;
        if (!best || entry.at >= best.at) best = { ip: entry.egressIp, at: entry.at };
      }
      const row = reader.egress(connection, sinceMs);
      if (row && (!best || row.at > best.at)) return row.ip;
      return best ? best.ip : null;
    },
  };
}
