// Request log: appends go to memory on the request hot path; a timer writes them in batches.
//
// Ids are assigned at append time (continuing the table's AUTOINCREMENT sequence), so an entry
// has the same id before and after it reaches disk and `recent()` can merge both seamlessly.

import type { ClientFormat, RequestLogEntry } from '../../../shared/contract';
import type { Db } from './db';

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
const MAX_TEXT = 4096;
const MAX_LIMIT = 1000;

interface LogRow {
  id: number;
  at: number;
  client_format: string | null;
  model_requested: string | null;
  target: string | null;
  provider: string | null;
  connection: string | null;
  status: number | null;
  latency_ms: number | null;
  ttfb_ms: number | null;
  stream: number | null;
  bytes_in: number | null;
  bytes_out: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  error_class: string | null;
  error_message: string | null;
  decision: string | null;
  egress_ip: string | null;
}

const COLUMNS =
  'id, at, client_format, model_requested, target, provider, connection, status, latency_ms, ' +
  'ttfb_ms, stream, bytes_in, bytes_out, input_tokens, output_tokens, cached_tokens, ' +
  'error_class, error_message, decision, egress_ip';

// Positional parameters, in COLUMNS order: binding by name costs a lookup per column per row.
const INSERT_VALUES = COLUMNS.split(',')
  .map(() => '?')
  .join(', ');

export function createRequestLog(db: Db, opts: RequestLogOptions = {}): RequestLog {
  const flushIntervalMs = Math.max(1, opts.flushIntervalMs ?? 250);
  const maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? 500));
  const retention = opts.retentionDays ?? 30;
  const retentionMs = () => (typeof retention === 'function' ? retention() : retention) * DAY_MS;
  const maxRows = Math.max(1, Math.floor(opts.maxRows ?? 200_000));
  const maxBuffer = Math.max(1, Math.floor(opts.maxBuffer ?? 50_000));
  const now = opts.now ?? Date.now;
  const onError = opts.onError;

  const insertStmt = db.prepare(`INSERT INTO request_log (${COLUMNS}) VALUES (${INSERT_VALUES})`);
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
  const egressStmt = db.prepare<[string, number], { egress_ip: string; at: number }>(
    `SELECT egress_ip, at FROM request_log
     WHERE connection = ? AND at >= ? AND egress_ip IS NOT NULL
     ORDER BY at DESC, id DESC LIMIT 1`,
  );
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
    for (const e of batch) {
      insertStmt.run(
        e.id,
        e.at,
        e.clientFormat,
        e.modelRequested,
        e.target,
        e.provider,
        e.connection,
        e.status,
        e.latencyMs,
        e.ttfbMs,
        e.stream ? 1 : 0,
        e.bytesIn,
        e.bytesOut,
        e.inputTokens,
        e.outputTokens,
        e.cachedTokens,
        e.errorClass,
        e.errorMessage,
        e.decision,
        e.egressIp,
      );
    }
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

  function matches(entry: RequestLogEntry, q: RecentQuery): boolean {
    if (q.beforeId !== undefined && !(entry.id < q.beforeId)) return false;
    if (q.provider !== undefined && entry.provider !== q.provider) return false;
    if (q.connection !== undefined && entry.connection !== q.connection) return false;
    if (q.status !== undefined && entry.status !== q.status) return false;
    if (q.errorsOnly && !isError(entry)) return false;
    return true;
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
      const fromDisk = stmt.all(params).map(fromRow);
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
      const row = egressStmt.get(connection, sinceMs);
      if (row && (!best || row.at > best.at)) return row.egress_ip;
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

function clampLimit(limit: number): number {
  if (!Number.isFinite(limit)) return limit === Number.POSITIVE_INFINITY ? MAX_LIMIT : 1;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

function isError(entry: RequestLogEntry): boolean {
  return entry.errorClass !== null || entry.status < 200 || entry.status >= 400;
}

/** Copies the entry into a shape SQLite can always bind (no undefined, booleans, NaN). */
function normalize(
  input: Omit<RequestLogEntry, 'id'>,
  id: number,
  now: () => number,
): RequestLogEntry {
  return {
    id,
    at: int(input.at) ?? now(),
    clientFormat: String(input.clientFormat ?? '') as ClientFormat,
    modelRequested: String(input.modelRequested ?? ''),
    target: text(input.target),
    provider: text(input.provider),
    connection: text(input.connection),
    status: int(input.status) ?? 0,
    latencyMs: int(input.latencyMs) ?? 0,
    ttfbMs: int(input.ttfbMs),
    stream: input.stream === true,
    bytesIn: int(input.bytesIn) ?? 0,
    bytesOut: int(input.bytesOut) ?? 0,
    inputTokens: int(input.inputTokens),
    outputTokens: int(input.outputTokens),
    cachedTokens: int(input.cachedTokens),
    errorClass: text(input.errorClass),
    errorMessage: text(input.errorMessage),
    decision: text(input.decision),
    egressIp: text(input.egressIp),
  };
}

function int(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = typeof value === 'string' ? value : String(value);
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s;
}

function fromRow(row: LogRow): RequestLogEntry {
  return {
    id: row.id,
    at: row.at,
    clientFormat: (row.client_format ?? '') as ClientFormat,
    modelRequested: row.model_requested ?? '',
    target: row.target,
    provider: row.provider,
    connection: row.connection,
    status: row.status ?? 0,
    latencyMs: row.latency_ms ?? 0,
    ttfbMs: row.ttfb_ms,
    stream: row.stream === 1,
    bytesIn: row.bytes_in ?? 0,
    bytesOut: row.bytes_out ?? 0,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedTokens: row.cached_tokens,
    errorClass: row.error_class,
    errorMessage: row.error_message,
    decision: row.decision,
    egressIp: row.egress_ip,
  };
}
