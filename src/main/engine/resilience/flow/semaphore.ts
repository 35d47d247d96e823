/**
 * Per-connection `maxConcurrent` (RESILIENCE.md §4): FIFO waiting for a slot, and fail-open —
 * when the wait line is full or the wait times out, the request goes ahead without a slot
 * rather than being refused. A permit is a handle released in `finally`, safe to release twice.
 */

export interface Permit {
  /** False when the request went ahead without a slot (fail-open). */
  readonly held: boolean;
  /** Why it went ahead without a slot, if it did. */
  readonly bypass: 'queue_full' | 'wait_timeout' | null;
  release(): void;
}

export interface SemaphoreOptions {
  /** Most requests waiting for a slot (default 100). */
  maxWaiting: number;
  /** Longest wait for a slot before going ahead anyway (default 30 s). */
  waitTimeoutMs: number;
}

export const DEFAULT_SEMAPHORE_OPTIONS: SemaphoreOptions = {
  maxWaiting: 100,
  waitTimeoutMs: 30_000,
};

interface Waiter {
  grant: (p: Permit) => void;
  timer: NodeJS.Timeout | null;
}

const FREE_PASS = (bypass: Permit['bypass']): Permit => ({ held: false, bypass, release() {} });
// Releasing a pass that holds nothing does nothing, so the common one is shared.
const NO_LIMIT_PASS: Permit = Object.freeze(FREE_PASS(null));

export class Semaphore {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private limit: number,
    private readonly opts: SemaphoreOptions = DEFAULT_SEMAPHORE_OPTIONS,
  ) {}

  setLimit(limit: number): void {
    this.limit = limit;
    this.drain();
  }

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** True when a request arriving now would have to wait (routing prefers others). */
  get saturated(): boolean {
    return this.limit > 0 && this.active >= this.limit;
  }

  private permit(): Permit {
    this.active++;
    let released = false;
    return {
      held: true,
      bypass: null,
      release: () => {
        if (released) return;
        released = true;
        this.active--;
        this.drain();
      },
    };
  }

  private drain(): void {
    while (this.waiting.length > 0 && (this.limit <= 0 || this.active < this.limit)) {
      const w = this.waiting.shift()!;
      if (w.timer) clearTimeout(w.timer);
      w.grant(this.permit());
    }
  }

  /** A permit (or the pass of an unlimited semaphore) when no wait is needed, else null. */
  tryAcquire(): Permit | null {
    if (this.limit <= 0) return NO_LIMIT_PASS;
    if (this.active < this.limit && this.waiting.length === 0) return this.permit();
    return null;
  }

  /**
   * Resolves with a permit once a slot is free, or at once with a pass that holds no slot
   * when waiting is not possible. `signal` abandons the wait (client gone).
   */
  acquire(signal?: AbortSignal): Promise<Permit> {
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    // A client already gone does not take a place in line (its abort event has fired already).
    if (signal?.aborted) return Promise.resolve(FREE_PASS(null));
    if (this.waiting.length >= this.opts.maxWaiting)
      return Promise.resolve(FREE_PASS('queue_full'));
    return new Promise((resolve) => {
      const waiter: Waiter = { grant: resolve, timer: null };
      const leave = (bypass: Permit['bypass']) => {
        const i = this.waiting.indexOf(waiter);
        if (i === -1) return;
        this.waiting.splice(i, 1);
        if (waiter.timer) clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(FREE_PASS(bypass));
      };
      const onAbort = () => leave(null);
      waiter.timer = setTimeout(() => leave('wait_timeout'), this.opts.waitTimeoutMs);
      waiter.grant = (p) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(p);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }
}
