// Repository for combos (named, ordered lists of targets).

import type { ComboConfig, ComboStrategy } from '../../../shared/contract';
import type { Db } from './db';
import { parseStringArray } from './json';

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
        targets: JSON.stringify(rec.targets ?? []),
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

function fromRow(row: ComboRow): ComboRecord {
  return {
    name: row.name,
    strategy: row.strategy as ComboStrategy,
    targets: parseStringArray(row.targets),
    position: row.position,
  };
}
