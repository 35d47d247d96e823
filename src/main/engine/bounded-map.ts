// A map with a time to live and a hard cap, for state keyed by something a client chooses
// (sessions, prompt prefixes, model names): a client that sends a new key per request must not
// grow the heap without end. Entries sit on a list from least to most recently written, so
// expiry and the cap both drop from its head: O(1) per write, no allocation beyond the entry.

/** What `/metrics` exports per map. */
export interface BoundedMapStats {
  readonly name: string;
  readonly size: number;
  readonly capacity: number;
  /** Entries dropped because their time to live ran out. */
  readonly expired: number;
  /** Entries dropped to make room under the cap (least recently written first). */
  readonly evicted: number;
}

export interface BoundedMapOptions<K, V> {
  /** The `map` label in `/metrics`: lower case, `_` between words. */
  name: string;
  maxEntries: number;
  /** How long an entry lives after its last write; read on every check, so it may be a setting. */
  ttlMs: () => number;
  /** Told of each entry expiry or the cap drops (not of `delete`), e.g. to delete its row. */
  onDrop?: (key: K, value: V) => void;
}

interface Slot<K, V> {
  key: K;
  value: V;
  /** When the entry was last written. */
  at: number;
  older: Slot<K, V> | null;
  newer: Slot<K, V> | null;
}

export class BoundedMap<K, V> {
  private readonly slots = new Map<K, Slot<K, V>>();
  private oldest: Slot<K, V> | null = null;
  private newest: Slot<K, V> | null = null;
  private expiredCount = 0;
  private evictedCount = 0;

  constructor(private readonly opts: BoundedMapOptions<K, V>) {}

  get size(): number {
    return this.slots.size;
  }

  /** The live value, or undefined (none, or past its time to live: then it is dropped). */
  get(key: K, now: number): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (this.stale(slot, now)) {
      this.drop(slot);
      this.expiredCount++;
      return undefined;
    }
    return slot.value;
  }

  /**
   * Writes the entry at `now` and makes it the most recent (restoring stored rows, `now` is
   * when each was written: oldest first, so the list stays in time order). Drops at most one
   * expired entry and one over the cap, which is all one write can add.
   */
  set(key: K, value: V, now: number): void {
    let slot = this.slots.get(key);
    if (slot) {
      this.unlink(slot);
      slot.value = value;
      slot.at = now;
    } else {
      slot = { key, value, at: now, older: null, newer: null };
      this.slots.set(key, slot);
    }
    this.append(slot);
    const head = this.oldest;
    if (head && head !== slot && this.stale(head, now)) {
      this.drop(head);
      this.expiredCount++;
    }
    if (this.slots.size > this.opts.maxEntries && this.oldest) {
      this.drop(this.oldest);
      this.evictedCount++;
    }
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (!slot) return false;
    this.unlink(slot);
    this.slots.delete(key);
    return true;
  }

  /** Drops every entry past its time to live; stops at the first live one (the list is in time order). */
  sweep(now: number): void {
    while (this.oldest && this.stale(this.oldest, now)) {
      this.drop(this.oldest);
      this.expiredCount++;
    }
  }

  /** The live entries, least recently written first. */
  *entries(now: number): IterableIterator<[K, V]> {
    for (let s = this.oldest; s; s = s.newer) if (!this.stale(s, now)) yield [s.key, s.value];
  }

  stats(): BoundedMapStats {
    return {
      name: this.opts.name,
      size: this.slots.size,
      capacity: this.opts.maxEntries,
      expired: this.expiredCount,
      evicted: this.evictedCount,
    };
  }

  private stale(slot: Slot<K, V>, now: number): boolean {
    return slot.at + this.opts.ttlMs() <= now;
  }

  private drop(slot: Slot<K, V>): void {
    this.unlink(slot);
    this.slots.delete(slot.key);
    this.opts.onDrop?.(slot.key, slot.value);
  }

  private append(slot: Slot<K, V>): void {
    slot.older = this.newest;
    slot.newer = null;
    if (this.newest) this.newest.newer = slot;
    else this.oldest = slot;
    this.newest = slot;
  }

  private unlink(slot: Slot<K, V>): void {
    if (slot.older) slot.older.newer = slot.newer;
    else this.oldest = slot.newer;
    if (slot.newer) slot.newer.older = slot.older;
    else this.newest = slot.older;
    slot.older = null;
    slot.newer = null;
  }
}

/** Every bounded map of one engine: one clock, one sweep timer, one list for `/metrics`. */
export class BoundedMaps {
  private readonly maps: BoundedMap<unknown, unknown>[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number) {}

  create<K, V>(opts: BoundedMapOptions<K, V>): BoundedMap<K, V> {
    const map = new BoundedMap<K, V>(opts);
    this.maps.push(map as BoundedMap<unknown, unknown>);
    return map;
  }

  sweep(): void {
    const now = this.now();
    for (const m of this.maps) m.sweep(now);
  }

  stats(): BoundedMapStats[] {
    return this.maps.map((m) => m.stats());
  }

  /** Sweeps every `everyMs` on a timer that does not keep the process alive. */
  startSweeping(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), everyMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * Values worked out from a key a client chooses (a request path, a model name), kept while they
 * are few: a lookup that nearly always hits costs a Map read instead of the work. When full it
 * is emptied whole (no order kept, nothing allocated per read), so a client that sends a new key
 * each time makes it useless, never large.
 */
export class RecentValues<K, V> {
  private readonly kept = new Map<K, V>();

  constructor(
    private readonly maxEntries: number,
    private readonly make: (key: K) => V,
  ) {}

  get(key: K): V {
    let value = this.kept.get(key);
    if (value === undefined) {
      value = this.make(key);
      if (this.kept.size >= this.maxEntries) this.kept.clear();
      this.kept.set(key, value);
    }
    return value;
  }
}
