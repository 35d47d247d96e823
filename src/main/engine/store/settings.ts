// Key/value settings; values are stored as JSON text.

import type { Db } from './db';
import { parseJson } from './json';

export interface SettingsRepo {
  all(): Record<string, unknown>;
  get(key: string): unknown | undefined;
  /** Throws when `value` has no JSON form (undefined, a function, a symbol). */
  set(key: string, value: unknown): void;
  /** All or nothing, in one transaction. */
  setMany(values: Record<string, unknown>): void;
  remove(key: string): boolean;
}

interface SettingRow {
  key: string;
  value: string;
}

const CORRUPT = Symbol('corrupt');

export function createSettingsRepo(db: Db, now: () => number = Date.now): SettingsRepo {
  const allStmt = db.prepare<[], SettingRow>('SELECT key, value FROM settings ORDER BY key');
  const getStmt = db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck();
  const setStmt = db.prepare<[string, string, number]>(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const removeStmt = db.prepare<[string]>('DELETE FROM settings WHERE key = ?');

  const set = (key: string, value: unknown): void => {
    setStmt.run(key, encode(key, value), now());
  };
  const setMany = db.transaction((values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) set(key, value);
  });

  return {
    all: () => {
      const entries: [string, unknown][] = [];
      for (const row of allStmt.all()) {
        const value = parseJson<unknown>(row.value, CORRUPT);
        if (value !== CORRUPT) entries.push([row.key, value]);
      }
      return Object.fromEntries(entries);
    },
    get: (key) => {
      const text = getStmt.get(key);
      if (text === undefined) return undefined;
      const value = parseJson<unknown>(text, CORRUPT);
      return value === CORRUPT ? undefined : value;
    },
    set,
    setMany: (values) => setMany(values),
    remove: (key) => removeStmt.run(key).changes > 0,
  };
}

function encode(key: string, value: unknown): string {
  const text = JSON.stringify(value);
  if (typeof text !== 'string') {
    throw new TypeError(`Setting "${key}" has no JSON value (got ${typeof value})`);
  }
  return text;
}
