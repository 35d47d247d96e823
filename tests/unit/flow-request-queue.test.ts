import { afterEach, describe, expect, it } from 'vitest';
import type { QueueLimits } from '../../src/main/engine/resilience/flow/admission';
import {
  QueueRejection,
  type QueueSlot,
  type RateLimit,
  RequestQueues,
} from '../../src/main/engine/resilience/flow/request-queue';

// Real Bottleneck, real (small) times: every wait below is tens of milliseconds.

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const ONE: RateLimit = { concurrency: 1 };
const LIMITS: QueueLimits = { maxWaitMs: 2_000, executionMaxWaitMs: 2_000, maxQueueDepth: 0 };

interface Tracked {
  state: 'pending' | 'resolved' | 'rejected';
  slot: QueueSlot | null;
  error: QueueRejection | null;
  done: Promise<void>;
}

function track(p: Promise<QueueSlot | QueueRejection>): Tracked {
  const t: Tracked = { state: 'pending', slot: null, error: null, done: Promise.resolve() };
  t.done = p.then((outcome) => {
    if (outcome instanceof QueueRejection) {
      t.state = 'rejected';
      t.error = outcome;
    } else {
      t.state = 'resolved';
      t.slot = outcome;
    }
  });
  return t;
}

let queues: RequestQueues;
const slots: QueueSlot[] = [];

function acquire(
  rateLimit: RateLimit = ONE,
  limits: Partial<QueueLimits> = {},
  opts: {
    expirationMs?: number;
    signal?: AbortSignal;
    connection?: string;
    provider?: string;
  } = {},
): Tracked {
  const t = track(
    queues.acquire(
      opts.provider ?? 'openai',
      opts.connection ?? 'key-1',
      rateLimit,
      { ...LIMITS, ...limits },
      opts.expirationMs ?? 2_000,
      opts.signal ?? new AbortController().signal,
    ),
  );
  void t.done.then(() => {
    if (t.slot) slots.push(t.slot);
  });
  return t;
}

/** Resolves once the tracked acquire has a slot (Bottleneck starts jobs on a later tick). */
async function running(t: Tracked): Promise<QueueSlot> {
  await t.done;
  if (!t.slot) throw new Error(`expected a slot, got ${t.error?.code}`);
  return t.slot;
}

/** Runs pending promise reactions, but no timer. */
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function view(provider = 'openai', connection = 'key-1') {
  const v = queues.views().find((x) => x.provider === provider && x.connection === connection);
  return v ? { running: v.running, queued: v.queued, rejected: v.rejected } : undefined;
}

function fresh(): RequestQueues {
  queues = new RequestQueues();
  return queues;
}

afterEach(async () => {
  for (const s of slots.splice(0)) s.release();
  await queues?.close();
});

describe('§5 one Bottleneck limiter per provider+connection', () => {
  it('connections (and the same connection name under two providers) queue independently', async () => {
    fresh();
    const a = acquire(ONE, {}, { connection: 'key-1' });
    const b = acquire(ONE, {}, { connection: 'key-2' });
    const c = acquire(ONE, {}, { provider: 'anthropic', connection: 'key-1' });
    await Promise.all([running(a), running(b), running(c)]);
    expect(queues.views()).toHaveLength(3);
    expect(view('openai', 'key-1')).toEqual({ running: 1, queued: 0, rejected: 0 });
    expect(view('openai', 'key-2')).toEqual({ running: 1, queued: 0, rejected: 0 });
    expect(view('anthropic', 'key-1')).toEqual({ running: 1, queued: 0, rejected: 0 });
  });

  it('concurrency 1: the second request waits until the first slot is released', async () => {
    fresh();
    const a = await running(acquire());
    const b = acquire();
    await sleep(20);
    expect(b.state).toBe('pending');
    expect(view()).toEqual({ running: 1, queued: 1, rejected: 0 });
    a.release();
    await running(b);
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
  });
});

describe('§5 a connection without a limit skips Bottleneck (nothing to wait for)', () => {
  it('every acquire resolves at once and is counted as running', async () => {
    fresh();
    const ts = Array.from({ length: 20 }, () => acquire({}, { maxQueueDepth: 1 }));
    await settleMicrotasks();
    expect(ts.every((t) => t.state === 'resolved')).toBe(true);
    expect(view()).toEqual({ running: 20, queued: 0, rejected: 0 });
    for (const t of ts) {
      t.slot!.release();
      t.slot!.release();
    }
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
  });

  it('concurrency 0 is unlimited too', async () => {
    fresh();
    const ts = [acquire({ concurrency: 0 }), acquire({ concurrency: 0 })];
    await settleMicrotasks();
    expect(ts.map((t) => t.state)).toEqual(['resolved', 'resolved']);
  });
});

describe('§5 maxQueueDepth: when that many requests already wait, a new one is rejected at once with RATE_LIMIT_QUEUE_FULL before it is scheduled', () => {
  it('concurrency 1, depth 2: one runs, two wait, the 4th is refused at once with Retry-After', async () => {
    fresh();
    const limits = { maxQueueDepth: 2, maxWaitMs: 5_000 };
    const a = await running(acquire(ONE, limits));
    const b = acquire(ONE, limits);
    const c = acquire(ONE, limits);
    const d = acquire(ONE, limits);
    await settleMicrotasks();
    // At once: settled before any timer or Bottleneck tick could run.
    expect(d.state).toBe('rejected');
    expect(d.error).toBeInstanceOf(QueueRejection);
    expect(d.error?.code).toBe('RATE_LIMIT_QUEUE_FULL');
    expect(d.error?.retryAfterMs).toBe(5_000);
    expect(view()).toEqual({ running: 1, queued: 2, rejected: 1 });

    // The refused one was never scheduled: the two waiters get the slot in turn, nobody else.
    a.release();
    const sb = await running(b);
    expect(c.state).toBe('pending');
    sb.release();
    const sc = await running(c);
    sc.release();
    await sleep(10);
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 1 });
  });

  it('a burst arriving in the same tick: the one that gets the free slot does not count as waiting', async () => {
    fresh();
    const limits = { maxQueueDepth: 2 };
    const burst = [1, 2, 3, 4].map(() => acquire(ONE, limits));
    await burst[3]!.done;
    expect(burst[3]!.error?.code).toBe('RATE_LIMIT_QUEUE_FULL');
    const first = await running(burst[0]!);
    expect(view()).toEqual({ running: 1, queued: 2, rejected: 1 });
    first.release();
    (await running(burst[1]!)).release();
    (await running(burst[2]!)).release();
  });

  it('depth 0 is unlimited: any number may wait', async () => {
    fresh();
    const a = await running(acquire());
    const waiting = Array.from({ length: 30 }, () => acquire());
    await sleep(10);
    expect(waiting.every((t) => t.state === 'pending')).toBe(true);
    expect(view()).toEqual({ running: 1, queued: 30, rejected: 0 });
    a.release();
    for (const t of waiting) (await running(t)).release();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
  });
});

describe('§5 maxWaitMs: a request over its waiting budget never reaches the upstream; it fails with RATE_LIMIT_QUEUE_TIMEOUT', () => {
  it('the waiter over budget is rejected, its job never runs, the next waiter gets the slot, and the running slot is not affected', async () => {
    fresh();
    let expired = false;
    const a = await running(acquire(ONE, { maxWaitMs: 40 }));
    a.onExpire(() => {
      expired = true;
    });
    const late = acquire(ONE, { maxWaitMs: 40 });
    const next = acquire(ONE, { maxWaitMs: 2_000 });
    await late.done;
    expect(late.state).toBe('rejected');
    expect(late.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
    expect(late.error?.retryAfterMs).toBe(40);
    expect(view()).toEqual({ running: 1, queued: 1, rejected: 1 });

    // The running slot outlives the waiting budget untouched.
    await sleep(30);
    expect(expired).toBe(false);
    expect(view()).toEqual({ running: 1, queued: 1, rejected: 1 });

    a.release();
    const s = await running(next);
    expect(late.slot).toBeNull();
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 1 });
    s.release();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 1 });
  });

  it('the timer stops when the job starts: a job that waited and then runs past maxWaitMs is not rejected', async () => {
    fresh();
    const a = await running(acquire());
    const b = acquire(ONE, { maxWaitMs: 100 });
    await sleep(10);
    a.release();
    const sb = await running(b);
    await sleep(100);
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
    sb.release();
  });

  it('a client that goes away while queued leaves the queue and its job never runs', async () => {
    fresh();
    const a = await running(acquire());
    const ac = new AbortController();
    const gone = acquire(ONE, {}, { signal: ac.signal });
    const next = acquire();
    await sleep(5);
    ac.abort();
    await gone.done;
    expect(gone.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
    expect(gone.error?.retryAfterMs).toBeNull();
    expect(view()).toEqual({ running: 1, queued: 1, rejected: 0 });
    a.release();
    (await running(next)).release();
    expect(gone.slot).toBeNull();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
  });
});

describe("§5 executionMaxWaitMs: Bottleneck's job expiration, counted from the start of execution", () => {
  it('expiry calls onExpire once, frees the slot for the next waiter, and a later release is harmless', async () => {
    fresh();
    let expired = 0;
    const a = await running(acquire(ONE, {}, { expirationMs: 40 }));
    const expiry = new Promise<void>((r) =>
      a.onExpire(() => {
        expired++;
        r();
      }),
    );
    const b = acquire(ONE, {}, { expirationMs: 2_000 });
    await expiry;
    const sb = await running(b);
    expect(expired).toBe(1);
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
    a.release();
    a.release();
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
    sb.release();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
    await sleep(5);
    expect(expired).toBe(1);
  });

  it('time spent waiting does not count against the expiration', async () => {
    fresh();
    const a = await running(acquire());
    const b = acquire(ONE, {}, { expirationMs: 50 });
    await sleep(70);
    a.release();
    const sb = await running(b);
    const startedAt = Date.now();
    // Counted from scheduling it would already be over; counted from the start it takes ~50 ms.
    const expiredAt = await Promise.race([
      new Promise<number>((r) => sb.onExpire(() => r(Date.now()))),
      sleep(1_000).then(() => Number.NaN),
    ]);
    expect(expiredAt - startedAt).toBeGreaterThanOrEqual(30);
  });

  it('a slot released before its expiration never expires', async () => {
    fresh();
    let expired = false;
    const a = await running(acquire(ONE, {}, { expirationMs: 30 }));
    a.onExpire(() => {
      expired = true;
    });
    a.release();
    await sleep(50);
    expect(expired).toBe(false);
  });
});

describe('§5 a queue slot is a handle released in finally, safe to release twice (STYLE 5)', () => {
  it('a double release frees one slot only, and the counts return to 0', async () => {
    fresh();
    const two: RateLimit = { concurrency: 2 };
    const a = await running(acquire(two));
    const b = await running(acquire(two));
    const c = acquire(two);
    const d = acquire(two);
    a.release();
    a.release();
    const sc = await running(c);
    await sleep(15);
    expect(d.state).toBe('pending');
    expect(view()).toEqual({ running: 2, queued: 1, rejected: 0 });
    b.release();
    const sd = await running(d);
    sc.release();
    sd.release();
    sd.release();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
  });
});

describe('§5 requests-per-minute learned from x-ratelimit-limit-requests when none is configured', () => {
  it('an unlimited connection that learns 2 rpm makes the third request of the minute wait', async () => {
    fresh();
    queues.learn('openai', 'key-1', {}, { 'x-ratelimit-limit-requests': '2' });
    const a = acquire({});
    const b = acquire({});
    const c = acquire({}, { maxWaitMs: 40 });
    (await running(a)).release();
    (await running(b)).release();
    await c.done;
    expect(c.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
  });

  it('the Anthropic header and repeated values are read too', async () => {
    fresh();
    queues.learn('anthropic', 'acct', {}, { 'anthropic-ratelimit-requests-limit': ['1', '9'] });
    const a = acquire({}, {}, { provider: 'anthropic', connection: 'acct' });
    const b = acquire({}, { maxWaitMs: 30 }, { provider: 'anthropic', connection: 'acct' });
    (await running(a)).release();
    await b.done;
    expect(b.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
  });

  it('a configured requestsPerMinute is kept: the header does not replace it', async () => {
    fresh();
    const configured: RateLimit = { requestsPerMinute: 1 };
    queues.learn('openai', 'key-1', configured, { 'x-ratelimit-limit-requests': '1000' });
    const a = acquire(configured);
    const b = acquire(configured, { maxWaitMs: 30 });
    (await running(a)).release();
    await b.done;
    expect(b.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
  });

  it('missing, zero, negative, fractional or garbage values teach nothing', async () => {
    fresh();
    for (const v of [undefined, '0', '-5', '1.5', 'abc', '']) {
      queues.learn('openai', 'key-1', {}, { 'x-ratelimit-limit-requests': v });
    }
    const ts = Array.from({ length: 5 }, () => acquire({}));
    await settleMicrotasks();
    expect(ts.every((t) => t.state === 'resolved')).toBe(true);
  });
});

describe('§5 views: running, queued and rejected per provider+connection', () => {
  it('rejections decided elsewhere (execution timeout) are counted too; close empties the views', async () => {
    fresh();
    (await running(acquire())).release();
    queues.countRejection('openai', 'key-1');
    queues.countRejection('openai', 'unknown');
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 1 });
    expect(view('openai', 'unknown')).toBeUndefined();
    await queues.close();
    expect(queues.views()).toEqual([]);
  });
});

describe('tryAcquire: the slot of a connection without limits, without a turn of the loop', () => {
  it('counts the running job and frees it once, however often released', () => {
    fresh();
    const slot = queues.tryAcquire('openai', 'key-1', {}, LIMITS);
    expect(slot).not.toBeNull();
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
    slot!.release();
    slot!.release();
    expect(view()).toEqual({ running: 0, queued: 0, rejected: 0 });
  });

  it('leaves limited connections to acquire', () => {
    fresh();
    expect(queues.tryAcquire('openai', 'key-1', ONE, LIMITS)).toBeNull();
    expect(queues.tryAcquire('openai', 'key-2', { requestsPerMinute: 60 }, LIMITS)).toBeNull();
    expect(view('openai', 'key-1')).toEqual({ running: 0, queued: 0, rejected: 0 });
  });
});

describe('edges of the wait line', () => {
  it('a client already gone does not join the line', async () => {
    fresh();
    await running(acquire(ONE));
    const controller = new AbortController();
    controller.abort();
    const late = acquire(ONE, {}, { signal: controller.signal });
    await late.done;
    expect(late.state).toBe('rejected');
    expect(late.error?.code).toBe('RATE_LIMIT_QUEUE_TIMEOUT');
    expect(view()).toEqual({ running: 1, queued: 0, rejected: 0 });
  });

  it('closing the queues answers the waiters at once, not at their wait limit', async () => {
    fresh();
    await running(acquire(ONE));
    const waiter = acquire(ONE, { maxWaitMs: 60_000 });
    await settleMicrotasks();
    const started = Date.now();
    await queues.close();
    await waiter.done;
    expect(waiter.state).toBe('rejected');
    expect(waiter.error?.message).toMatch(/closed while the request waited/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
