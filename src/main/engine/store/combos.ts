// Repository for combos (named, ordered lists of targets).

import type {
  ComboConfig,
  ComboOptions,
  ComboStrategy,
  ComboTarget,
} from '../../../shared/contract';
import type { Db } from './db';
import { parseJson } from './json';

export interface ComboRecord extends ComboConfig {
  position: number;
}

export interface ComboRepo {
  /** Ordered by position, then name. */
  list(): ComboRecord[];
  get(name: string): ComboRecord | undefined;
  /**
   * Inserts or replaces. Without `position`, a new combo goes after the existing ones and an
   * existing combo keeps its place. `created_at` of an existing row is kept.
   */
  upsert(rec: ComboConfig & { position?: number }): void;
  remove(name: string): boolean;
}

interface ComboRow {
  name: string;
  strategy: string;
  targets: string;
  position: number;
}

export function createComboRepo(db: Db, now: () => number = Date.now): ComboRepo {
  const listStmt = db.prepare<[], ComboRow>(
    'SELECT name, strategy, targets, position FROM combos ORDER BY position, name',
  );
  const getStmt = db.prepare<[string], ComboRow>(
    'SELECT name, strategy, targets, position FROM combos WHERE name = ?',
  );
  const upsertStmt = db.prepare(
    `INSERT INTO combos (name, strategy, targets, position, created_at, updated_at)
     VALUES (
       @name, @strategy, @targets,
       COALESCE(@position, (SELECT COALESCE(MAX(position) + 1, 0) FROM combos)),
       @now, @now
     )
     ON CONFLICT(name) DO UPDATE SET
       strategy = excluded.strategy,
       targets = excluded.targets,
       position = COALESCE(@position, combos.position),
       updated_at = excluded.updated_at`,
  );
  const removeStmt = db.prepare<[string]>('DELETE FROM combos WHERE name = ?');

  return {
    list: () => listStmt.all().map(fromRow),
    get: (name) => {
      const row = getStmt.get(name);
      return row ? fromRow(row) : undefined;
    },
    upsert: (rec) => {
      upsertStmt.run({
        name: rec.name,
        strategy: rec.strategy,
        targets: targetsColumn(rec),
        position:
          typeof rec.position === 'number' && Number.isFinite(rec.position)
            ? Math.trunc(rec.position)
            : null,
        now: now(),
      });
    },
    remove: (name) => removeStmt.run(name).changes > 0,
  };
}

/**
 * The `targets` column holds the target list, or, when the combo has options, `{ targets,
 * options }` (no column of their own without a migration; a plain list stays readable).
 */
function targetsColumn(rec: ComboConfig): string {
  const targets = rec.targets ?? [];
  const options = rec.options;
  return JSON.stringify(
    options && Object.keys(options).length > 0 ? { targets, options } : targets,
  );
}

function isTarget(v: unknown): v is ComboTarget {
  return (
    typeof v === 'string' ||
    (typeof v === 'object' && v !== null && typeof (v as { target?: unknown }).target === 'string')
  );
}

function fromRow(row: ComboRow): ComboRecord {
  const stored = parseJson<unknown>(row.targets, []);
  const wrapped = typeof stored === 'object' && stored !== null && !Array.isArray(stored);
  const list = wrapped ? (stored as { targets?: unknown }).targets : stored;
  const options = wrapped ? (stored as { options?: unknown }).options : undefined;
  const rec: ComboRecord = {
    name: row.name,
    strategy: row.strategy as ComboStrategy,
    targets: Array.isArray(list) ? list.filter(isTarget) : [],
    position: row.position,
  };
  if (typeof options === 'object' && options !== null) rec.options = options as ComboOptions;
  return rec;
}
