// Repository for configured providers (without their connections; see connections.ts).

import type {
  AuthClass,
  ModelEntry,
  ProviderFormat,
  ProviderOptions,
  UpstreamTimeouts,
} from '../../../shared/contract';
import type { Db } from './db';
import { parseJson, parseObject } from './json';

export interface ProviderRecord {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  /** Ids, or `{ id, contextWindow, price }` entries (the same JSON column). */
  models: ModelEntry[];
  timeouts: Partial<UpstreamTimeouts>;
  options?: ProviderOptions;
  enabled: boolean;
  position: number;
}

export interface ProviderRepo {
  /** Ordered by position, then id. */
  list(): ProviderRecord[];
  get(id: string): ProviderRecord | undefined;
  /** Inserts or replaces; `created_at` of an existing row is kept. */
  upsert(rec: ProviderRecord): void;
  /** Also deletes the provider's connections (ON DELETE CASCADE). */
  remove(id: string): boolean;
}

interface ProviderRow {
  id: string;
  format: string;
  base_url: string;
  auth_class: string;
  models: string;
  timeouts: string;
  options: string;
  enabled: number;
  position: number;
}

const COLUMNS = 'id, format, base_url, auth_class, models, timeouts, options, enabled, position';

export function createProviderRepo(db: Db, now: () => number = Date.now): ProviderRepo {
  const listStmt = db.prepare<[], ProviderRow>(
    `SELECT ${COLUMNS} FROM providers ORDER BY position, id`,
  );
  const getStmt = db.prepare<[string], ProviderRow>(
    `SELECT ${COLUMNS} FROM providers WHERE id = ?`,
  );
  const upsertStmt = db.prepare(
    `INSERT INTO providers (${COLUMNS}, created_at, updated_at)
     VALUES (@id, @format, @baseUrl, @authClass, @models, @timeouts, @options, @enabled, @position, @now, @now)
     ON CONFLICT(id) DO UPDATE SET
       format = excluded.format,
       base_url = excluded.base_url,
       auth_class = excluded.auth_class,
       models = excluded.models,
       timeouts = excluded.timeouts,
       options = excluded.options,
       enabled = excluded.enabled,
       position = excluded.position,
       updated_at = excluded.updated_at`,
  );
  const removeStmt = db.prepare<[string]>('DELETE FROM providers WHERE id = ?');

  return {
    list: () => listStmt.all().map(fromRow),
    get: (id) => {
      const row = getStmt.get(id);
      return row ? fromRow(row) : undefined;
    },
    upsert: (rec) => {
      upsertStmt.run({
        id: rec.id,
        format: rec.format,
        baseUrl: rec.baseUrl,
        authClass: rec.authClass,
        models: JSON.stringify(rec.models ?? []),
        timeouts: JSON.stringify(rec.timeouts ?? {}),
        options: JSON.stringify(rec.options ?? {}),
        enabled: rec.enabled === false ? 0 : 1,
        position: Number.isFinite(rec.position) ? Math.trunc(rec.position) : 0,
        now: now(),
      });
    },
    remove: (id) => removeStmt.run(id).changes > 0,
  };
}

function fromRow(row: ProviderRow): ProviderRecord {
  return {
    id: row.id,
    format: row.format as ProviderFormat,
    baseUrl: row.base_url,
    authClass: row.auth_class as AuthClass,
    models: parseModelEntries(row.models),
    timeouts: parseObject<Partial<UpstreamTimeouts>>(row.timeouts),
    options: parseObject<ProviderOptions>(row.options),
    enabled: row.enabled !== 0,
    position: row.position,
  };
}

/** Model entries as stored; a corrupt entry is dropped rather than failing the whole list. */
function parseModelEntries(text: unknown): ModelEntry[] {
  const value = parseJson<unknown>(text, []);
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is ModelEntry =>
      typeof v === 'string' ||
      (typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string'),
  );
}
