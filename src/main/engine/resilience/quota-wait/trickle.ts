/** A waiter as the release decision sees it. */
export interface TrickleWaiter {
  /** Its place in arrival order (lower came first). */
  arrival: number;
  /** When the obstacle it waits for ends. */
  until: number;
}

/**
 * Which waiters to release now (issue 29): only those whose obstacle has ended, in arrival
 * order, and no more than keep `released` + new ones within `burst`, so a reset everyone waits
 * for is met by a trickle rather than a herd. Pure.
 */
export function toRelease<T extends TrickleWaiter>(
  waiters: Iterable<T>,
  released: number,
  burst: number,
  now: number,
): T[] {
  const room = burst - released;
  if (room <= 0) return [];
  const due: T[] = [];
  for (const w of waiters) if (w.until <= now) due.push(w);
  due.sort((a, b) => a.arrival - b.arrival);
  return due.slice(0, room);
}
