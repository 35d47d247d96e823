import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_SEMAPHORE_OPTIONS,
  type Permit,
  Semaphore,
} from '../../src/main/engine/resilience/flow/semaphore';
import { findSetting } from '../../src/main/engine/settings/registry';

/** Lets settled promises run their reactions (grants resolve on the microtask queue). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

interface Tracked {
  permit: Permit | null;
  failed: boolean;
}

function track(p: Promise<Permit>, order?: number[], index?: number): Tracked {
  const t: Tracked = { permit: null, failed: false };
  p.then(
    (permit) => {
      t.permit = permit;
      if (order && index !== undefined && permit.held) order.push(index);
    },
    () => {
      t.failed = true;
    },
  );
  return t;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
});

describe('§4 maxConcurrent per connection: empty or 0 = unlimited; only a positive value limits', () => {
  it('0 (and anything not positive) lets every request through without taking a slot', async () => {
    for (const limit of [0, -1]) {
      const sem = new Semaphore(limit);
      const permits = await Promise.all(Array.from({ length: 50 }, () => sem.acquire()));
      expect(permits.every((p) => !p.held && p.bypass === null)).toBe(true);
      expect(sem.inUse).toBe(0);
      expect(sem.queued).toBe(0);
      expect(sem.saturated).toBe(false);
      for (const p of permits) p.release();
      expect(sem.inUse).toBe(0);
    }
  });

  it('a positive limit hands out that many slots at once, then the next request waits', async () => {
    const sem = new Semaphore(2);
    const a = await sem.acquire();
    const b = await sem.acquire();
    expect([a.held, b.held]).toEqual([true, true]);
    expect([a.bypass, b.bypass]).toEqual([null, null]);
    expect(sem.inUse).toBe(2);
    const c = track(sem.acquire());
    await flush();
    expect(c.permit).toBeNull();
    expect(sem.queued).toBe(1);
    a.release();
    await flush();
    expect(c.permit?.held).toBe(true);
    expect(sem.inUse).toBe(2);
    expect(sem.queued).toBe(0);
  });

  it('raising the limit lets waiters in; lowering it keeps current holders and makes new ones wait', async () => {
    const sem = new Semaphore(1);
    const a = await sem.acquire();
    const b = track(sem.acquire());
    const c = track(sem.acquire());
    sem.setLimit(3);
    await flush();
    expect(b.permit?.held).toBe(true);
    expect(c.permit?.held).toBe(true);
    expect(sem.inUse).toBe(3);
    sem.setLimit(1);
    const d = track(sem.acquire());
    await flush();
    expect(d.permit).toBeNull();
    a.release();
    b.permit?.release();
    await flush();
    expect(d.permit).toBeNull();
    c.permit?.release();
    await flush();
    expect(d.permit?.held).toBe(true);
    expect(sem.inUse).toBe(1);
  });

  it('switching the limit off (0) lets everyone waiting go ahead', async () => {
    const sem = new Semaphore(1);
    await sem.acquire();
    const waiting = [track(sem.acquire()), track(sem.acquire())];
    sem.setLimit(0);
    await flush();
    expect(waiting.every((w) => w.permit !== null)).toBe(true);
    expect(sem.queued).toBe(0);
  });
});

describe('§4 extra requests wait in FIFO order for a slot', () => {
  it('slots go to waiters in the order they arrived', async () => {
    const sem = new Semaphore(1);
    const order: number[] = [];
    const first = await sem.acquire();
    const waiters = [1, 2, 3].map((i) => track(sem.acquire(), order, i));
    expect(sem.queued).toBe(3);
    first.release();
    await flush();
    expect(order).toEqual([1]);
    waiters[0]!.permit!.release();
    await flush();
    waiters[1]!.permit!.release();
    await flush();
    expect(order).toEqual([1, 2, 3]);
  });

  it('a newcomer does not overtake the line', async () => {
    const sem = new Semaphore(1);
    const order: number[] = [];
    const first = await sem.acquire();
    track(sem.acquire(), order, 1);
    first.release();
    // The slot went to the waiter synchronously; the newcomer has to wait behind it.
    const late = track(sem.acquire(), order, 2);
    await flush();
    expect(order).toEqual([1]);
    expect(late.permit).toBeNull();
    expect(sem.queued).toBe(1);
  });

  it('property: slots are granted in arrival order under any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.oneof(fc.constant('acquire' as const), fc.nat({ max: 20 })), {
          maxLength: 40,
        }),
        async (limit, ops) => {
          const sem = new Semaphore(limit, { maxWaiting: 1_000, waitTimeoutMs: 60_000 });
          const order: number[] = [];
          const all: Tracked[] = [];
          for (const op of ops) {
            if (op === 'acquire') {
              all.push(track(sem.acquire(), order, all.length));
            } else {
              const holders = all.filter((t) => t.permit?.held);
              holders[op % Math.max(1, holders.length)]?.permit?.release();
            }
            await flush();
          }
          // Without timeouts or aborts the slots went to a prefix of the arrivals, in order;
          // everyone else still waits.
          expect(order).toEqual(order.map((_, i) => i));
          expect(sem.queued).toBe(all.length - order.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('§4 the limit is fail-open: a full wait queue (default 100 waiting) lets the request proceed without a slot', () => {
  it('defaults: 100 waiting, 30 s wait, global toggle concurrencyLimit.enabled on', () => {
    expect(DEFAULT_SEMAPHORE_OPTIONS).toEqual({ maxWaiting: 100, waitTimeoutMs: 30_000 });
    expect(findSetting('concurrencyLimit.maxWaiting')?.defaultValue).toBe(100);
    expect(findSetting('concurrencyLimit.waitTimeoutMs')?.defaultValue).toBe(30_000);
    expect(findSetting('concurrencyLimit.enabled')?.defaultValue).toBe(true);
  });

  it('with the default options the 101st waiter goes ahead at once without a slot', async () => {
    const sem = new Semaphore(1);
    const holder = await sem.acquire();
    const line = Array.from({ length: 100 }, () => track(sem.acquire()));
    expect(sem.queued).toBe(100);
    const extra = await sem.acquire();
    expect(extra).toMatchObject({ held: false, bypass: 'queue_full' });
    expect(sem.inUse).toBe(1);
    expect(sem.queued).toBe(100);
    extra.release();
    expect(sem.inUse).toBe(1);
    holder.release();
    await flush();
    expect(line[0]!.permit?.held).toBe(true);
  });

  it('maxWaiting 0: nobody waits, everyone past the limit goes ahead without a slot', async () => {
    const sem = new Semaphore(1, { maxWaiting: 0, waitTimeoutMs: 1_000 });
    await sem.acquire();
    expect(await sem.acquire()).toMatchObject({ held: false, bypass: 'queue_full' });
    expect(sem.queued).toBe(0);
  });
});

describe('§4 the limit is fail-open: a wait that times out (default 30 s) proceeds without a slot', () => {
  it('the waiter goes ahead after exactly waitTimeoutMs and leaves the line', async () => {
    const sem = new Semaphore(1);
    const holder = await sem.acquire();
    const w = track(sem.acquire());
    await vi.advanceTimersByTimeAsync(29_999);
    expect(w.permit).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(w.permit).toMatchObject({ held: false, bypass: 'wait_timeout' });
    expect(sem.queued).toBe(0);
    expect(sem.inUse).toBe(1);
    // Its pass holds nothing: releasing it frees nothing, and the freed slot is not its.
    w.permit!.release();
    expect(sem.inUse).toBe(1);
    holder.release();
    expect(sem.inUse).toBe(0);
  });

  it('a waiter granted in time keeps its slot: its timer is stopped', async () => {
    const sem = new Semaphore(1, { maxWaiting: 10, waitTimeoutMs: 100 });
    const holder = await sem.acquire();
    const w = track(sem.acquire());
    await vi.advanceTimersByTimeAsync(50);
    holder.release();
    await flush();
    expect(w.permit).toMatchObject({ held: true, bypass: null });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sem.inUse).toBe(1);
  });

  it('the next in line keeps its place when one ahead times out', async () => {
    const sem = new Semaphore(1, { maxWaiting: 10, waitTimeoutMs: 100 });
    const order: number[] = [];
    const holder = await sem.acquire();
    const early = track(sem.acquire(), order, 1);
    await vi.advanceTimersByTimeAsync(60);
    track(sem.acquire(), order, 2);
    await vi.advanceTimersByTimeAsync(40);
    expect(early.permit?.bypass).toBe('wait_timeout');
    holder.release();
    await flush();
    expect(order).toEqual([2]);
  });
});

describe('§4 a permit is a handle released in finally, safe to release twice (STYLE 5)', () => {
  it('a second release frees nothing and grants no second waiter', async () => {
    const sem = new Semaphore(2);
    const a = await sem.acquire();
    await sem.acquire();
    const c = track(sem.acquire());
    const d = track(sem.acquire());
    a.release();
    a.release();
    await flush();
    expect(c.permit?.held).toBe(true);
    expect(d.permit).toBeNull();
    expect(sem.inUse).toBe(2);
    expect(sem.queued).toBe(1);
  });
});

describe('§4 a request whose client went away leaves the wait line', () => {
  it('aborting removes the waiter at once; it goes ahead holding nothing and the line moves on', async () => {
    const sem = new Semaphore(1);
    const order: number[] = [];
    const holder = await sem.acquire();
    const ac = new AbortController();
    const gone = track(sem.acquire(ac.signal), order, 1);
    track(sem.acquire(), order, 2);
    ac.abort();
    await flush();
    expect(gone.permit).toMatchObject({ held: false, bypass: null });
    expect(sem.queued).toBe(1);
    holder.release();
    await flush();
    expect(order).toEqual([2]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a client already gone does not take a place in line', async () => {
    const sem = new Semaphore(1);
    await sem.acquire();
    const ac = new AbortController();
    ac.abort();
    expect(await sem.acquire(ac.signal)).toMatchObject({ held: false, bypass: null });
    expect(sem.queued).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort after the slot was granted changes nothing', async () => {
    const sem = new Semaphore(1);
    const holder = await sem.acquire();
    const ac = new AbortController();
    const w = track(sem.acquire(ac.signal));
    holder.release();
    await flush();
    ac.abort();
    await flush();
    expect(w.permit?.held).toBe(true);
    expect(sem.inUse).toBe(1);
  });
});

describe('§4 routing prefers connections below their limit (a connection at its limit is saturated)', () => {
  it('saturated is true exactly while all slots are taken', async () => {
    const sem = new Semaphore(2);
    expect(sem.saturated).toBe(false);
    const a = await sem.acquire();
    expect(sem.saturated).toBe(false);
    await sem.acquire();
    expect(sem.saturated).toBe(true);
    a.release();
    expect(sem.saturated).toBe(false);
  });
});

type Op =
  | { kind: 'acquire'; withSignal: boolean }
  | { kind: 'release'; pick: number; twice: boolean }
  | { kind: 'abort'; pick: number }
  | { kind: 'tick'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('acquire'), withSignal: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('release'), pick: fc.nat(50), twice: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort'), pick: fc.nat(50) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick'), ms: fc.integer({ min: 1, max: 60 }) }),
  },
) as fc.Arbitrary<Op>;

describe('§4 properties of the per-connection semaphore (any interleaving of acquire, release, abort, time)', () => {
  it('never more than `limit` holders, releases twice are harmless, FIFO grants, no slot idles while someone waits, every acquire resolves (fail-open)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(opArb, { maxLength: 50 }),
        async (limit, maxWaiting, waitTimeoutMs, ops) => {
          vi.clearAllTimers();
          const sem = new Semaphore(limit, { maxWaiting, waitTimeoutMs });
          const order: number[] = [];
          const all: Array<Tracked & { ac: AbortController }> = [];
          const released = new Set<Permit>();
          const liveHolders = () =>
            all.filter((t) => t.permit?.held && !released.has(t.permit)).length;

          for (const op of ops) {
            if (op.kind === 'acquire') {
              const ac = new AbortController();
              const t = track(
                sem.acquire(op.withSignal ? ac.signal : undefined),
                order,
                all.length,
              );
              all.push(Object.assign(t, { ac }));
            } else if (op.kind === 'release') {
              const granted = all.filter((t) => t.permit !== null);
              const permit = granted[op.pick % Math.max(1, granted.length)]?.permit;
              if (permit) {
                permit.release();
                released.add(permit);
                if (op.twice) permit.release();
              }
            } else if (op.kind === 'abort') {
              all[op.pick % Math.max(1, all.length)]?.ac.abort();
            } else {
              await vi.advanceTimersByTimeAsync(op.ms);
            }
            await flush();
            expect(sem.inUse).toBe(liveHolders());
            expect(sem.inUse).toBeLessThanOrEqual(limit);
            if (sem.queued > 0) expect(sem.inUse).toBe(limit);
            expect(sem.queued).toBeLessThanOrEqual(maxWaiting);
          }
          // Slots were granted in arrival order (those that left the line got no slot).
          expect(order).toEqual([...order].sort((x, y) => x - y));

          // Fail-open: with no further release, every acquire resolves by the wait timeout.
          await vi.advanceTimersByTimeAsync(waitTimeoutMs);
          expect(all.every((t) => t.permit !== null && !t.failed)).toBe(true);
          for (const t of all) t.permit?.release();
          expect(sem.inUse).toBe(0);
          expect(sem.queued).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('tryAcquire: a permit without waiting, or null when one must wait', () => {
  it('unlimited gives a pass that holds nothing; limited gives permits until full', () => {
    expect(new Semaphore(0).tryAcquire()).toMatchObject({ held: false, bypass: null });
    const s = new Semaphore(1);
    const p = s.tryAcquire();
    expect(p?.held).toBe(true);
    expect(s.tryAcquire()).toBeNull();
    p!.release();
    expect(s.tryAcquire()?.held).toBe(true);
  });
});
