// Repository for Anthropic subscription state per connection (low-priority lane, limit reset),
// written in batches off the request path.

import type { Db } from './db';
import { parseJson } from './json';

/** Stored as JSON and read back through the resilience module's own `restore…` functions. */
export interface SubscriptionRow {
  lane: unknown;
  limitReset: unknown;
}

export interface SubscriptionRepo {
  load(): Map<string, SubscriptionRow>;
  /** One transaction: upserts, and deletions (`null`) of connections back to the idle state. */
  save(changes: Map<string, SubscriptionRow | null>, now: number): void;
}

export function createSubscriptionRepo(db: Db): SubscriptionRepo {
  const loadStmt = db.prepare<[], { connection_id: string; lane: string; limit_reset: string }>(
    'SELECT connection_id, lane, limit_reset FROM subscription_state',
  );
  const upsert = db.prepare(
    `INSERT INTO subscription_state (connection_id, lane, limit_reset, updated_at)
     SELECT @connection, @lane, @limitReset, @now WHERE EXISTS (SELECT 1 FROM connections WHERE id = @connection)
     ON CONFLICT(connection_id) DO UPDATE SET lane = excluded.lane, limit_reset = excluded.limit_reset,
       updated_at = excluded.updated_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM subscription_state WHERE connection_id = ?');
  const save = db.transaction((changes: Map<string, SubscriptionRow | null>, now: number) => {
    for (const [connection, row] of changes) {
      if (row === null) remove.run(connection);
      else
        upsert.run({
          connection,
          lane: JSON.stringify(row.lane),
          limitReset: JSON.stringify(row.limitReset),
          now,
        });
    }
  });
  return {
    load: () =>
      new Map(
        loadStmt.all().map((r) => [
          r.connection_id,
          {
            lane: parseJson<unknown>(r.lane, null),
            limitReset: parseJson<unknown>(r.limit_reset, null),
          },
        ]),
      ),
    save,
  };
}
