// Reading the request log: the query filters, and the statements that read what reached disk.

import type { RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';
import { COLUMNS, fromRow, type LogRow } from './request-log-rows';

const MAX_LIMIT = 1000;

export interface RecentQuery {
  /** Clamped to 1..1000. */
  limit: number;
  /** Only entries with a smaller id (paging backwards). */
  beforeId?: number;
  provider?: string;
  connection?: string;
  status?: number;
  /** Entries with an error class, or a status outside 200..399. */
  errorsOnly?: boolean;
}

export function clampLimit(limit: number): number {
  if (!Number.isFinite(limit)) return limit === Number.POSITIVE_INFINITY ? MAX_LIMIT : 1;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

function isError(entry: RequestLogEntry): boolean {
  return entry.errorClass !== null || entry.status < 200 || entry.status >= 400;
}

/** The query's filter on an entry still in memory; the SQL of `prepareRecent` says the same. */
export function matches(entry: RequestLogEntry, q: RecentQuery): boolean {
  if (q.beforeId !== undefined && !(entry.id < q.beforeId)) return false;
  if (q.provider !== undefined && entry.provider !== q.provider) return false;
  if (q.connection !== undefined && entry.connection !== q.connection) return false;
  if (q.status !== undefined && entry.status !== q.status) return false;
  if (q.errorsOnly && !isError(entry)) return false;
  return true;
}

export interface LogReader {
  /** Newest first, at most `limit` rows on disk matching the query. */
  recent(query: RecentQuery, limit: number): RequestLogEntry[];
  /** The row on disk with this id. */
  byId(id: number): RequestLogEntry | null;
  /** The newest row on disk for `connection` at or after `sinceMs` that has an egress IP. */
  egress(connection: string, sinceMs: number): { ip: string; at: number } | null;
}

export function createLogReader(db: Db): LogReader {
  const egressStmt = db.prepare<[string, number], { egress_ip: string; at: number }>(
    `SELECT egress_ip, at FROM request_log
     WHERE connection = ? AND at >= ? AND egress_ip IS NOT NULL
     ORDER BY at DESC, id DESC LIMIT 1`,
  );
  const byIdStmt = db.prepare<[number], LogRow>(`SELECT ${COLUMNS} FROM request_log WHERE id = ?`);
  // One prepared statement per combination of filters, made on first use.
  const recentStmts = new Map<string, ReturnType<typeof prepareRecent>>();

  function prepareRecent(shape: string) {
    const where: string[] = [];
    if (shape.includes('b')) where.push('id < @beforeId');
    if (shape.includes('p')) where.push('provider = @provider');
    if (shape.includes('c')) where.push('connection = @connection');
    if (shape.includes('s')) where.push('status = @status');
    if (shape.includes('e')) {
      where.push('(error_class IS NOT NULL OR status IS NULL OR status < 200 OR status >= 400)');
    }
    return db.prepare<Record<string, unknown>, LogRow>(
      `SELECT ${COLUMNS} FROM request_log
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id DESC LIMIT @limit`,
    );
  }

  return {
    recent(query, limit) {
      const shape =
        (query.beforeId !== undefined ? 'b' : '') +
        (query.provider !== undefined ? 'p' : '') +
        (query.connection !== undefined ? 'c' : '') +
        (query.status !== undefined ? 's' : '') +
        (query.errorsOnly ? 'e' : '');
      let stmt = recentStmts.get(shape);
      if (!stmt) {
        stmt = prepareRecent(shape);
        recentStmts.set(shape, stmt);
      }
      const params: Record<string, unknown> = { limit };
      if (query.beforeId !== undefined) params.beforeId = query.beforeId;
      if (query.provider !== undefined) params.provider = query.provider;
      if (query.connection !== undefined) params.connection = query.connection;
      if (query.status !== undefined) params.status = query.status;
      return stmt.all(params).map(fromRow);
    },

    byId(id) {
      const row = byIdStmt.get(id);
      return row ? fromRow(row) : null;
    },

    egress(connection, sinceMs) {
      const row = egressStmt.get(connection, sinceMs);
      return row ? { ip: row.egress_ip, at: row.at } : null;
    },
  };
}
