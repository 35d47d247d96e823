// Repository for provider connections. Holds literal API keys: never log a record.

import type { ConnectionOptions } from '../../../shared/contract';
import type { Db } from './db';
import { parseObject } from './json';
import { openSecret, type SecretCodec, sealSecret } from './secret-codec';

export interface ConnectionRecord {
  id: string;
  provider: string;
  apiKey: string | null;
  apiKeyEnv: string | null;
  maxConcurrent: number | null;
  enabled: boolean;
  position: number;
  options?: ConnectionOptions;
}

export interface ConnectionRepo {
  /** All connections, or those of one provider; ordered by position, then id. */
  list(provider?: string): ConnectionRecord[];
  get(id: string): ConnectionRecord | undefined;
  /** Inserts or replaces; throws when `rec.provider` does not exist. */
  upsert(rec: ConnectionRecord): void;
  remove(id: string): boolean;
}

interface ConnectionRow {
  id: string;
  provider_id: string;
  api_key: string | null;
  api_key_env: string | null;
  max_concurrent: number | null;
  options: string;
  enabled: number;
  position: number;
}

const COLUMNS = 'id, provider_id, api_key, api_key_env, max_concurrent, options, enabled, position';

export interface ConnectionRepoOptions {
  now?: () => number;
  /** Seals literal keys at rest (see secret-codec.ts). */
  secretCodec?: SecretCodec;
  /** A sealed key that cannot be opened is reported here (never with the key). */
  onSecretError?: (connection: string, err: unknown) => void;
}

export function createConnectionRepo(db: Db, opts: ConnectionRepoOptions = {}): ConnectionRepo {
  const now = opts.now ?? Date.now;
  const fromRow = (row: ConnectionRow): ConnectionRecord =>
    rowToRecord(row, (stored) =>
      openSecret(stored, opts.secretCodec, (err) => opts.onSecretError?.(row.id, err)),
    );
  const listAllStmt = db.prepare<[], ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections ORDER BY position, id`,
  );
  const listByProviderStmt = db.prepare<[string], ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE provider_id = ? ORDER BY position, id`,
  );
  const getStmt = db.prepare<[string], ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE id = ?`,
  );
  const providerExistsStmt = db
    .prepare<[string], number>('SELECT 1 FROM providers WHERE id = ?')
    .pluck();
  const upsertStmt = db.prepare(
    `INSERT INTO connections (${COLUMNS}, created_at, updated_at)
     VALUES (@id, @provider, @apiKey, @apiKeyEnv, @maxConcurrent, @options, @enabled, @position, @now, @now)
     ON CONFLICT(id) DO UPDATE SET
       provider_id = excluded.provider_id,
       api_key = excluded.api_key,
       api_key_env = excluded.api_key_env,
       max_concurrent = excluded.max_concurrent,
       options = excluded.options,
       enabled = excluded.enabled,
       position = excluded.position,
       updated_at = excluded.updated_at`,
  );
  const removeStmt = db.prepare<[string]>('DELETE FROM connections WHERE id = ?');

  const upsert = db.transaction((rec: ConnectionRecord) => {
    if (providerExistsStmt.get(rec.provider) === undefined) {
      throw new Error(
        `Cannot save connection "${rec.id}": provider "${rec.provider}" does not exist`,
      );
    }
    upsertStmt.run({
      id: rec.id,
      provider: rec.provider,
      apiKey: sealSecret(rec.apiKey ?? null, opts.secretCodec),
      apiKeyEnv: rec.apiKeyEnv ?? null,
      maxConcurrent:
        typeof rec.maxConcurrent === 'number' && Number.isFinite(rec.maxConcurrent)
          ? Math.trunc(rec.maxConcurrent)
          : null,
      options: JSON.stringify(rec.options ?? {}),
      enabled: rec.enabled === false ? 0 : 1,
      position: Number.isFinite(rec.position) ? Math.trunc(rec.position) : 0,
      now: now(),
    });
  });

  return {
    list: (provider) =>
      (provider === undefined ? listAllStmt.all() : listByProviderStmt.all(provider)).map(fromRow),
    get: (id) => {
      const row = getStmt.get(id);
      return row ? fromRow(row) : undefined;
    },
    upsert: (rec) => upsert(rec),
    remove: (id) => removeStmt.run(id).changes > 0,
  };
}

function rowToRecord(
  row: ConnectionRow,
  open: (stored: string | null) => string | null,
): ConnectionRecord {
  return {
    id: row.id,
    provider: row.provider_id,
    apiKey: open(row.api_key),
    apiKeyEnv: row.api_key_env,
    maxConcurrent: row.max_concurrent,
    enabled: row.enabled !== 0,
    position: row.position,
    options: parseObject<ConnectionOptions>(row.options),
  };
}
