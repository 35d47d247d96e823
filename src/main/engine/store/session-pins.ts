// Repository for session affinity pins (session id → connection), written in batches.

import type { Db } from './db';

export interface SessionPin {
  session: string;
  connection: string;
  expiresAt: number;
}

export interface SessionPinRepo {
  /** The `limit` latest pins that have not expired at `now`. */
  load(now: number, limit: number): SessionPin[];
  /** One transaction: upserts, deletions (`null`), and a sweep of expired rows. */
  save(changes: Map<string, SessionPin | null>, now: number): void;
}

export function createSessionPinRepo(db: Db): SessionPinRepo {
  const loadStmt = db.prepare<
    [number, number],
    { session: string; connection_id: string; expires_at: number }
  >(
    'SELECT session, connection_id, expires_at FROM session_pins WHERE expires_at > ? ORDER BY expires_at DESC LIMIT ?',
  );
  const upsert = db.prepare(
    `INSERT INTO session_pins (session, connection_id, expires_at)
     SELECT @session, @connection, @expiresAt WHERE EXISTS (SELECT 1 FROM connections WHERE id = @connection)
     ON CONFLICT(session) DO UPDATE SET connection_id = excluded.connection_id, expires_at = excluded.expires_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM session_pins WHERE session = ?');
  const sweep = db.prepare<[number]>('DELETE FROM session_pins WHERE expires_at <= ?');
  const save = db.transaction((changes: Map<string, SessionPin | null>, now: number) => {
    for (const [session, pin] of changes) {
      if (pin === null) remove.run(session);
      else upsert.run(pin);
    }
    sweep.run(now);
  });
  return {
    load: (now, limit) =>
      loadStmt
        .all(now, limit)
        .map((r) => ({ session: r.session, connection: r.connection_id, expiresAt: r.expires_at })),
    save,
  };
}
