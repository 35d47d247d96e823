// Quota sharing between gateway keys (quota-share): a combo's connections admit at most their
// summed `maxConcurrent` requests at once; beyond that, requests wait in one line per key and
// are let through by deficit round robin, so a key that floods the combo cannot starve another.
// A wait that outlasts the maxConcurrent slot wait goes ahead anyway (fail-open): sharing
// shapes the order, it never refuses.

/** A place taken in a combo's share; releasing it twice does nothing. */
export interface ShareTicket {
  release(): void;
}

/** How a wait ended: admitted in turn, let through when it waited too long, or cancelled. */
export type ShareOutcome =
  | { kind: 'admitted'; ticket: ShareTicket; waitedMs: number }
  | { kind: 'overflow'; ticket: ShareTicket; waitedMs: number }
  | { kind: 'cancelled' };

interface Waiter {
  key: string;
  cost: number;
  since: number;
  done(outcome: ShareOutcome): void;
}

interface Line {
  readonly combo: string;
  active: number;
  capacity: number;
  quantum: number;
  waiting: Map<string, Waiter[]>;
  deficit: Map<string, number>;
  /** Keys with waiting requests, in round-robin order, and whose turn it is. */
  order: string[];
  turn: number;
  /** The key whose turn it is has had its quantum for this visit. */
  credited: boolean;
}

export interface ShareRequest {
  combo: string;
  /** The gateway key's name (`-` without keys: then everyone is one client). */
  key: string;
  /** 1 when sharing requests; the request's token estimate when sharing tokens. */
  cost: number;
  /** Added to a key's deficit each round: 1 for requests, a typical request for tokens. */
  quantum: number;
  capacity: number;
  signal: AbortSignal;
}

export class FairShare {
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly now: () => number,
    /** How long a request waits before it goes ahead anyway (`concurrencyLimit.waitTimeoutMs`). */
    private readonly maxWaitMs: () => number,
  ) {}

  private line(r: ShareRequest): Line {
    let line = this.lines.get(r.combo);
    if (!line) {
      line = {
        combo: r.combo,
        active: 0,
        capacity: r.capacity,
        quantum: r.quantum,
        waiting: new Map(),
        deficit: new Map(),
        order: [],
        turn: 0,
        credited: false,
      };
      this.lines.set(r.combo, line);
    }
    // A config change takes effect with the next request.
    line.capacity = r.capacity;
    line.quantum = r.quantum;
    return line;
  }

  /** A ticket at once when there is room and nobody waits; otherwise a wait in the key's line. */
  acquire(r: ShareRequest): ShareTicket | Promise<ShareOutcome> {
    const line = this.line(r);
    if (line.active < line.capacity && line.order.length === 0) return this.take(line);
    return new Promise<ShareOutcome>((resolve) => {
      const waiter: Waiter = {
        key: r.key,
        cost: r.cost,
        since: this.now(),
        done: (outcome) => {
          clearTimeout(timer);
          r.signal.removeEventListener('abort', cancel);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => {
        if (!this.drop(line, waiter)) return;
        waiter.done({
          kind: 'overflow',
          ticket: this.take(line),
          waitedMs: this.now() - waiter.since,
        });
      }, this.maxWaitMs());
      const cancel = () => {
        if (this.drop(line, waiter)) waiter.done({ kind: 'cancelled' });
      };
      r.signal.addEventListener('abort', cancel, { once: true });
      const queue = line.waiting.get(r.key);
      if (queue) queue.push(waiter);
      else {
        line.waiting.set(r.key, [waiter]);
        line.order.push(r.key);
      }
    });
  }

  /** Requests of `combo` admitted and waiting (for tests and diagnostics). */
  state(combo: string): { active: number; waiting: number } {
    const line = this.lines.get(combo);
    let waiting = 0;
    for (const q of line?.waiting.values() ?? []) waiting += q.length;
    return { active: line?.active ?? 0, waiting };
  }

  private take(line: Line): ShareTicket {
    line.active++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        line.active--;
        this.pump(line);
        if (line.active === 0 && line.order.length === 0) this.lines.delete(line.combo);
      },
    };
  }

  private pump(line: Line): void {
    while (line.active < line.capacity) {
      const next = this.next(line);
      if (!next) return;
      next.done({
        kind: 'admitted',
        ticket: this.take(line),
        waitedMs: this.now() - next.since,
      });
    }
  }

  /** Deficit round robin: each key's turn adds a quantum; it sends while its head fits. */
  private next(line: Line): Waiter | null {
    while (line.order.length > 0) {
      if (line.turn >= line.order.length) line.turn = 0;
      const key = line.order[line.turn]!;
      const queue = line.waiting.get(key)!;
      if (!line.credited) {
        line.deficit.set(key, (line.deficit.get(key) ?? 0) + line.quantum);
        line.credited = true;
      }
      const deficit = line.deficit.get(key)!;
      const head = queue[0]!;
      if (head.cost <= deficit) {
        line.deficit.set(key, deficit - head.cost);
        queue.shift();
        if (queue.length === 0) this.retire(line, key);
        return head;
      }
      line.turn++;
      line.credited = false;
    }
    return null;
  }

  /** A key with nothing waiting leaves the rotation and keeps no credit (DRR's reset). */
  private retire(line: Line, key: string): void {
    const at = line.order.indexOf(key);
    line.order.splice(at, 1);
    line.waiting.delete(key);
    line.deficit.delete(key);
    if (at === line.turn) line.credited = false;
    if (at < line.turn) line.turn--;
  }

  private drop(line: Line, waiter: Waiter): boolean {
    const queue = line.waiting.get(waiter.key);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.retire(line, waiter.key);
    return true;
  }
}
