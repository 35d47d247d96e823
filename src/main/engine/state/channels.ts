// Redis pub/sub ignores the database number: two teams on one server kept apart by database
// (`redis://host/1`, `redis://host/2`) with the same key prefix would hear each other's changes
// and permit releases. So a database other than 0 goes into the channel names; database 0 keeps
// the plain names every earlier version uses.

/** The database a Redis URL selects, read as ioredis does: the path (`/2`), else `?db=2`. */
export function databaseOf(url: string): number {
  try {
    const u = new URL(url);
    const raw = u.pathname.length > 1 ? u.pathname.slice(1) : u.searchParams.get('db');
    const db = raw === null ? 0 : Number.parseInt(raw, 10);
    return Number.isInteger(db) && db > 0 ? db : 0;
  } catch {
    return 0;
  }
}

/** What the pub/sub channel names of a team start with. */
export function channelPrefix(url: string, keyPrefix: string): string {
  const db = databaseOf(url);
  return db === 0 ? keyPrefix : `${keyPrefix}db${db}:`;
}
