// Opens the SQLite file, applies connection pragmas and brings the schema up to date.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './db';
import { assertSchemaSupported, migrate } from './migrations';

// better-sqlite3's native module built for another runtime (Electron's ABI, in a folder of its
// own): a property of the process, set once by the host before the first database opens.
let nativeBinding: string | undefined;

export function setSqliteBinding(file: string): void {
  nativeBinding = file;
}

export function openDatabase(file: string): Db {
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  try {
    db.pragma('busy_timeout = 5000');
    // Refuse a newer schema before touching the file (switching to WAL rewrites its header).
    assertSchemaSupported(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    migrate(db, undefined, file);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
