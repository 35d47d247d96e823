import type Database from 'better-sqlite3';

/** The open database every repository of the store works on. */
export type Db = Database.Database;
