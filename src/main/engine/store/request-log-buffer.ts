// The request log's entries waiting in memory, oldest first, and the id sequence they draw from.
//
// Entries live in `entries[head..]`, so dropping the oldest just advances `head`; the array is
// compacted now and then rather than shifted on every write.

import type { RequestLogEntry } from '../../../shared/contract';

export interface PendingBuffer {
  /** Entries waiting. */
  count(): number;
  /** The `i`-th waiting entry, 0 being the oldest. */
  at(i: number): RequestLogEntry | undefined;
  /** The id the next appended entry gets. */
  takeId(): number;
  /** Adds the entry; returns how many of the oldest were dropped to stay within the cap. */
  push(entry: RequestLogEntry): number;
  /** The oldest `max` entries, left in place. */
  oldest(max: number): RequestLogEntry[];
  /** Forgets the oldest `n` entries (written, or dropped). */
  discard(n: number): void;
  /** Gives the waiting entries consecutive ids from `from` on; later ids continue after them. */
  renumber(from: number): void;
}

export function createPendingBuffer(maxEntries: number, firstId: number): PendingBuffer {
  let entries: (RequestLogEntry | undefined)[] = [];
  let head = 0;
  let nextId = firstId;
  const count = () => entries.length - head;

  function compact(): void {
    if (head === 0) return;
    if (head === entries.length) {
      entries = [];
      head = 0;
    } else if (head > 1024 && head * 2 > entries.length) {
      entries = entries.slice(head);
      head = 0;
    }
  }

  function discard(n: number): void {
    for (let i = head; i < head + n; i++) entries[i] = undefined;
    head += n;
    compact();
  }

  return {
    count,
    at: (i) => entries[head + i],
    takeId: () => nextId++,
    push(entry) {
      entries.push(entry);
      const excess = count() - maxEntries;
      if (excess <= 0) return 0;
      discard(excess);
      return excess;
    },
    oldest: (max) => entries.slice(head, head + max) as RequestLogEntry[],
    discard,
    renumber(from) {
      let id = from;
      for (let i = head; i < entries.length; i++) {
        const entry = entries[i];
        if (entry) entry.id = id++;
      }
      nextId = id;
    },
  };
}
