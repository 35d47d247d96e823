// Repository for the last quota each connection's upstream announced in its rate-limit headers,
// so the dashboard still shows it after a restart. Written in batches off the request path.

import type { Db } from './db';
import { parseJson } from './json';

export interface QuotaRow {
  connection: string;
  /** The quota as JSON, read back through routing's own shape check. */
  quota: unknown;
  learnedAt: number;
}

export interface QuotaRepo {
  load(): QuotaRow[];
  /** One transaction of upserts. */
  save(rows: readonly QuotaRow[]): void;
}

export function createQuotaRepo(db: Db): QuotaRepo {
  const loadStmt = db.prepare<[], { connection: string; quota: string; learned_at: number }>(
    'SELECT connection, quota, learned_at FROM connection_quotas',
  );
  const upsert = db.prepare(
    `INSERT INTO connection_quotas (connection, quota, learned_at) VALUES (@connection, @quota, @learnedAt)
     ON CONFLICT(connection) DO UPDATE SET quota = excluded.quota, learned_at = excluded.learned_at`,
  );
  const save = db.transaction((rows: readonly QuotaRow[]) => {
    for (const r of rows) upsert.run({ ...r, quota: JSON.stringify(r.quota) });
  });
  return {
    load: () =>
      loadStmt.all().map((r) => ({
        connection: r.connection,
        quota: parseJson<unknown>(r.quota, null),
        learnedAt: r.learned_at,
      })),
    save,
  };
}
