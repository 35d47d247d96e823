import type { QuotaWaitView } from '../../../../shared/contract';
import { type TrickleWaiter, toRelease } from './trickle';

/** Waiters let go at once, at most (Breakwater). */
export const RELEASE_BURST = 4;
/** A released waiter holds its place in the burst until its call answered, or this long. */
export const RELEASE_SPACING_MS = 1_000;

/** A released waiter's place in the burst: given back once its call answered; safe twice. */
export interface QuotaRelease {
  end(): void;
}

/** One request waiting in the room. */
export interface Waiting {
  readonly id: string;
  /** The release, or null when the waiter left first. */
  readonly released: Promise<QuotaRelease | null>;
  /** The client went away: leave at once (nothing else happens for it). */
  leave(): void;
}

interface Waiter extends TrickleWaiter {
  view: QuotaWaitView;
  timer: NodeJS.Timeout | null;
  resolve(r: QuotaRelease | null): void;
}

/**
 * Requests waiting for a quota reset (issue 29), visible in the snapshot. Each waits for its own
 * obstacle's end; those whose end has come are released in arrival order, a few at a time: a
 * released one gives its place back when its upstream call answered (or after a second), so
 * when the reset turns out not to be real, few calls find out.
 */
export class QuotaWaitRoom {
  private readonly waiters = new Map<string, Waiter>();
  private arrivals = 0;
  private released = 0;

  constructor(
    private readonly now: () => number,
    private readonly burst = RELEASE_BURST,
    private readonly spacingMs = RELEASE_SPACING_MS,
  ) {}

  /**
   * Waits until `view.until`, then for a place in the trickle. `arrival` (from an earlier wait
   * of the same request) keeps the request's place in line.
   */
  enter(view: Omit<QuotaWaitView, 'id'>, arrival?: number): Waiting & { arrival: number } {
    const seq = arrival ?? this.arrivals++;
    const id = `qw-${seq}`;
    let resolve!: (r: QuotaRelease | null) => void;
    const released = new Promise<QuotaRelease | null>((r) => {
      resolve = r;
    });
    const w: Waiter = {
      arrival: seq,
      until: view.until,
      view: { id, ...view },
      timer: null,
      resolve,
    };
    this.waiters.set(id, w);
    this.arm(w);
    return {
      id,
      arrival: seq,
      released,
      leave: () => {
        if (!this.waiters.delete(id)) return;
        if (w.timer) clearTimeout(w.timer);
        resolve(null);
      },
    };
  }

  /** Who waits, for `/api/state`. */
  views(): QuotaWaitView[] {
    return [...this.waiters.values()].map((w) => w.view);
  }

  get size(): number {
    return this.waiters.size;
  }

  /** Wakes at the waiter's end; a timer may fire a little early by the clock, so it checks. */
  private arm(w: Waiter): void {
    const left = w.until - this.now();
    if (left <= 0) {
      w.timer = null;
      this.pump();
      return;
    }
    w.timer = setTimeout(() => this.arm(w), left);
  }

  private pump(): void {
    for (const w of toRelease(this.waiters.values(), this.released, this.burst, this.now())) {
      this.waiters.delete(w.view.id);
      if (w.timer) clearTimeout(w.timer);
      this.released++;
      w.resolve(this.release());
    }
  }

  private release(): QuotaRelease {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.released--;
      this.pump();
    };
    const timer = setTimeout(end, this.spacingMs);
    return { end };
  }
}
