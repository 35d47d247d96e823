// Usage per minute, by provider, connection, model, combo, gateway key and session. Rows are
// added to (never replaced), so a minute written in several flushes sums up; '' stands for
// "none" in a dimension (no combo, no key, no session).

import type { Statement } from 'better-sqlite3';
import type { UsageGroupBy, UsagePoint, UsageRow, UsageTotals } from '../../../shared/contract';
import type { Db } from './db';

/** The dimensions of a roll-up row; '' where one does not apply (no combo, key, session). */
export interface UsageDims {
  provider: string;
  connection: string;
  model: string;
  combo: string;
  keyName: string;
  session: string;
}

export interface UsageBucket extends UsageDims, UsageTotals {
  /** Start of the minute, epoch ms. */
  minute: number;
  errors: number;
  /** Requests whose tokens were estimated because the provider reported none. */
  estimated: number;
}

export interface UsageRollupRepo {
  /** Adds the buckets to what is stored, in one transaction. */
  add(buckets: readonly UsageBucket[]): void;
  /** Totals per group over `[since, until)`, the largest cost first. */
  totals(by: UsageGroupBy, since: number, until?: number): UsageRow[];
  /** Totals per group and per `stepMs` bucket over `[since, until)`, oldest first. */
  series(by: UsageGroupBy, since: number, stepMs: number, until?: number): UsagePoint[];
  /** Deletes minutes before `before`. */
  prune(before: number): void;
  /** One session's totals over the minutes in [since, until), and where its latest went; null if none. */
  session(id: string, since: number, until?: number): SessionTotals | null;
}

export interface SessionTotals extends UsageTotals {
  provider: string;
  model: string;
  connection: string;
  combo: string;
  lastMinute: number;
}

const COLUMN: Record<UsageGroupBy, string> = {
  model: 'model',
  provider: 'provider',
  connection: 'connection',
  key: 'key_name',
  combo: 'combo',
  session: 'session',
};

const SUMS = `SUM(requests) AS requests, SUM(input_tokens) AS inputTokens,
  SUM(output_tokens) AS outputTokens, SUM(cache_read_tokens) AS cacheReadTokens,
  SUM(cache_write_tokens) AS cacheWriteTokens, SUM(reasoning_tokens) AS reasoningTokens,
  SUM(cost_usd) AS costUsd`;

const FAR_FUTURE = Number.MAX_SAFE_INTEGER;

export function createUsageRollupRepo(db: Db): UsageRollupRepo {
  const addStmt = db.prepare(
    `INSERT INTO usage_minutes (minute, provider, connection, model, combo, key_name, session,
       requests, errors, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
       reasoning_tokens, cost_usd, estimated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET requests = requests + excluded.requests,
       errors = errors + excluded.errors, input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
       cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
       reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
       cost_usd = cost_usd + excluded.cost_usd, estimated = estimated + excluded.estimated`,
  );
  const addAll = db.transaction((buckets: readonly UsageBucket[]) => {
    for (const b of buckets) {
      addStmt.run(
        b.minute,
        b.provider,
        b.connection,
        b.model,
        b.combo,
        b.keyName,
        b.session,
        b.requests,
        b.errors,
        b.inputTokens,
        b.outputTokens,
        b.cacheReadTokens,
        b.cacheWriteTokens,
        b.reasoningTokens,
        b.costUsd,
        b.estimated,
      );
    }
  });
  // One prepared statement per grouping, made on first use.
  const totalsStmts = new Map<UsageGroupBy, Statement<[number, number], UsageRow>>();
  const seriesStmts = new Map<UsageGroupBy, Statement<[number, number, number], UsagePoint>>();
  const pruneStmt = db.prepare<[number]>('DELETE FROM usage_minutes WHERE minute < ?');
  const sessionStmt = db.prepare<[string, number, number], UsageTotals & { rows: number }>(
    `SELECT COUNT(*) AS rows, ${SUMS} FROM usage_minutes
     WHERE session = ? AND minute >= ? AND minute < ?`,
  );
  const sessionLastStmt = db.prepare<
    [string, number, number],
    Omit<SessionTotals, keyof UsageTotals>
  >(
    `SELECT provider, model, connection, combo, minute AS lastMinute FROM usage_minutes
     WHERE session = ? AND minute >= ? AND minute < ? ORDER BY minute DESC LIMIT 1`,
  );

  const totalsStmt = (by: UsageGroupBy) => {
    let stmt = totalsStmts.get(by);
    if (!stmt) {
      stmt = db.prepare<[number, number], UsageRow>(
        `SELECT ${COLUMN[by]} AS "group", ${SUMS} FROM usage_minutes
         WHERE minute >= ? AND minute < ? GROUP BY 1 ORDER BY costUsd DESC, requests DESC`,
      );
      totalsStmts.set(by, stmt);
    }
    return stmt;
  };
  const seriesStmt = (by: UsageGroupBy) => {
    let stmt = seriesStmts.get(by);
    if (!stmt) {
      stmt = db.prepare<[number, number, number], UsagePoint>(
        `SELECT (minute - minute % ?) AS at, ${COLUMN[by]} AS "group", ${SUMS} FROM usage_minutes
         WHERE minute >= ? AND minute < ? GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      seriesStmts.set(by, stmt);
    }
    return stmt;
  };

  return {
    add: (buckets) => {
      if (buckets.length > 0) addAll.immediate(buckets);
    },
    totals: (by, since, until = FAR_FUTURE) => totalsStmt(by).all(since, until),
    series: (by, since, stepMs, until = FAR_FUTURE) => seriesStmt(by).all(stepMs, since, until),
    prune: (before) => {
      pruneStmt.run(before);
    },
    session(id, since, until = FAR_FUTURE) {
      const totals = sessionStmt.get(id, since, until);
      const last = sessionLastStmt.get(id, since, until);
      if (!totals || totals.rows === 0 || !last) return null;
      const { rows: _rows, ...sums } = totals;
      return { ...sums, ...last };
    },
  };
}
