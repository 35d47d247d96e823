import Bottleneck from 'bottleneck';
import type { QueueView } from '../../../../shared/contract';
import type { Logger } from '../../logger';
import type { LimiterStore } from '../../state/backend';
import { admit, type QueueCode, type QueueLimits } from './admission';

/** Rate limits of one connection: configured, or learned from upstream rate-limit headers. */
export interface RateLimit {
  concurrency?: number;
  requestsPerMinute?: number;
}

/** A connection without configured limits (shared, never mutated). */
export const NO_RATE_LIMIT: Readonly<RateLimit> = Object.freeze({});

/**
 * A request the queue turned away: a value the caller decides on (skip this connection), not an
 * exception, so a refusal costs no stack trace and cannot be mistaken for a failure.
 */
export class QueueRejection {
  constructor(
    readonly code: QueueCode,
    readonly retryAfterMs: number | null,
    readonly message: string,
  ) {}
}

/** A running job's hold on the limiter; released in `finally`, safe twice. */
export interface QueueSlot {
  release(): void;
  /** Called if Bottleneck expires the job (execution over `executionMaxWaitMs`). */
  onExpire(listener: () => void): void;
}

interface Entry {
  limiter: Bottleneck;
  /** Team mode: the same limits kept in Redis (one limiter id per connection), made on first use. */
  cluster: Bottleneck | null;
  /** Fail-open hooks of the jobs waiting in `cluster`, run when that limiter breaks. */
  clusterWaiters: Set<() => void>;
  /** The next team limiter rewrites the limiter's keys: the last one found them corrupt. */
  clearCluster: boolean;
  rateLimit: RateLimit;
  learnedRpm: number | null;
  waiting: number;
  running: number;
  rejected: number;
}

function isLimited(e: Entry): boolean {
  return Boolean(
    (e.rateLimit.concurrency ?? 0) > 0 || e.rateLimit.requestsPerMinute || e.learnedRpm,
  );
}

function sameRateLimit(a: RateLimit, b: RateLimit): boolean {
  return (
    a === b || (a.concurrency === b.concurrency && a.requestsPerMinute === b.requestsPerMinute)
  );
}

/** A running job of a connection without limits: counted, never scheduled, never expired. */
class FreeSlot implements QueueSlot {
  private released = false;

  constructor(private readonly e: Entry) {
    e.running++;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.e.running--;
  }

  onExpire(): void {}
}

/**
 * Requests that really wait for a slot. Bottleneck starts a job on a later tick, so a job
 * admitted while a concurrency slot is free is about to run, not waiting; without this a burst
 * was refused with RATE_LIMIT_QUEUE_FULL before `maxQueueDepth` requests waited.
 */
function waitingForSlot(e: Entry): number {
  const limit = e.rateLimit.concurrency ?? 0;
  const free = limit > 0 ? Math.max(0, limit - e.running) : 0;
  return Math.max(0, e.waiting - free);
}

function limiterSettings(r: RateLimit, learnedRpm: number | null): Bottleneck.ConstructorOptions {
  const rpm = r.requestsPerMinute ?? learnedRpm ?? null;
  return {
    maxConcurrent: r.concurrency && r.concurrency > 0 ? r.concurrency : null,
    reservoir: rpm,
    reservoirRefreshAmount: rpm,
    reservoirRefreshInterval: rpm ? 60_000 : null,
  };
}

/**
 * One Bottleneck limiter per provider+connection, below breaker, cooldown and lockout. The
 * admission check (queue depth) is pure and runs before scheduling; the wait budget is a timer
 * that stops when the job starts; execution expiry is Bottleneck's own `expiration`.
 */
export class RequestQueues {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: LimiterStore | null = null,
    private readonly log?: Logger,
  ) {}

  /** The limiter a job goes to: the team's while Redis is reachable, else this instance's. */
  private limiterOf(key: string, e: Entry): Bottleneck {
    if (!this.store?.usable()) return e.limiter;
    if (!e.cluster) {
      e.cluster = new Bottleneck({
        ...limiterSettings(e.rateLimit, e.learnedRpm),
        id: this.store.id(key.replace('\u0000', '/')),
        datastore: 'ioredis',
        connection: this.store.connection,
        clearDatastore: e.clearCluster,
        // The limiter's keys in Redis expire after an hour without use.
        timeout: 3_600_000,
      });
      e.clearCluster = false;
      const cluster = e.cluster;
      cluster.on('error', (err: unknown) => this.retireCluster(key, e, cluster, err));
    }
    return e.cluster;
  }

  /**
   * A team limiter that hit a Redis error: Bottleneck reports it as an event and leaves the job
   * it was placing queued for good (a key of the wrong type, written by a peer or by hand, did
   * that to every later job). Its waiters go ahead without a slot (fail-open), and the next job
   * gets a new limiter, which rewrites the keys when Redis answered with an error about them.
   */
  private retireCluster(key: string, e: Entry, cluster: Bottleneck, err: unknown): void {
    if (e.cluster !== cluster) return;
    const corrupt = (err as Error | null)?.name === 'ReplyError';
    this.log?.warn(
      `team queue ${key.replace('\u0000', '/')}: ${corrupt ? 'Redis refused its limiter keys, which will be rewritten' : 'limiter error'} (${String(err)}); ${e.clusterWaiters.size} waiting requests go ahead`,
    );
    e.cluster = null;
    e.clearCluster = corrupt;
    const waiters = [...e.clusterWaiters];
    e.clusterWaiters.clear();
    for (const failOpen of waiters) failOpen();
    cluster.stop({ dropWaitingJobs: true }).catch(() => {});
  }

  private updateLimits(e: Entry): void {
    const settings = limiterSettings(e.rateLimit, e.learnedRpm);
    e.limiter.updateSettings(settings);
    // Typed as returning the limiter, it returns a promise (that rejects without Redis).
    const update = e.cluster?.updateSettings(settings) as Promise<unknown> | undefined;
    update?.catch(() => {});
  }

  private entry(provider: string, connection: string, rateLimit: RateLimit): Entry {
    const key = `${provider}\u0000${connection}`;
    let e = this.entries.get(key);
    if (!e) {
      e = {
        limiter: new Bottleneck(limiterSettings(rateLimit, null)),
        cluster: null,
        clusterWaiters: new Set(),
        clearCluster: false,
        rateLimit,
        learnedRpm: null,
        waiting: 0,
        running: 0,
        rejected: 0,
      };
      this.entries.set(key, e);
    } else if (!sameRateLimit(e.rateLimit, rateLimit)) {
      e.rateLimit = rateLimit;
      this.updateLimits(e);
    }
    return e;
  }

  /** Whether `acquire` would refuse at once for a full queue (counts nothing). */
  full(provider: string, connection: string, rateLimit: RateLimit, limits: QueueLimits): boolean {
    const e = this.entry(provider, connection, rateLimit);
    return !admit(waitingForSlot(e), limits).admit;
  }

  /**
   * The slot of a connection without limits, at once; null when the request must go through
   * `acquire` (limits to wait for, or a refusal to give).
   */
  tryAcquire(
    provider: string,
    connection: string,
    rateLimit: RateLimit,
    limits: QueueLimits,
  ): QueueSlot | null {
    const e = this.entry(provider, connection, rateLimit);
    if (isLimited(e) || !admit(waitingForSlot(e), limits).admit) return null;
    return new FreeSlot(e);
  }

  /**
   * Waits for a slot. Resolves with a `RATE_LIMIT_QUEUE_FULL` rejection at once when too many
   * already wait, `RATE_LIMIT_QUEUE_TIMEOUT` when the wait budget runs out (the job then never
   * runs), or the slot the attempt holds until it ends.
   */
  acquire(
    provider: string,
    connection: string,
    rateLimit: RateLimit,
    limits: QueueLimits,
    expirationMs: number,
    signal: AbortSignal,
  ): Promise<QueueSlot | QueueRejection> {
    const e = this.entry(provider, connection, rateLimit);
    const queued = waitingForSlot(e);
    const decision = admit(queued, limits);
    if (!decision.admit) {
      e.rejected++;
      return Promise.resolve(
        new QueueRejection(
          decision.code,
          decision.retryAfterMs,
          `${queued} requests already wait for ${provider}/${connection} (maxQueueDepth ${limits.maxQueueDepth})`,
        ),
      );
    }
    // Nothing to wait for: skip the scheduler's own latency on the hot path.
    if (!isLimited(e)) return Promise.resolve(new FreeSlot(e));
    // A client already gone does not join the line (its abort event has fired already).
    if (signal.aborted) {
      return Promise.resolve(
        new QueueRejection('RATE_LIMIT_QUEUE_TIMEOUT', null, 'client disconnected while queued'),
      );
    }
    e.waiting++;
    const limiter = this.limiterOf(`${provider}\u0000${connection}`, e);
    return new Promise<QueueSlot | QueueRejection>((resolve) => {
      let state: 'waiting' | 'running' | 'gone' = 'waiting';
      let finish: () => void = () => {};
      const expireListeners: Array<() => void> = [];
      const leaveQueue = (answer: QueueRejection | FreeSlot | null) => {
        if (state !== 'waiting') return;
        state = 'gone';
        e.waiting--;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        e.clusterWaiters.delete(failOpen);
        // A slot without the limiter: counted as running from here, not from when it was asked.
        resolve(answer ?? new FreeSlot(e));
      };
      const failOpen = () => leaveQueue(null);
      if (limiter === e.cluster) e.clusterWaiters.add(failOpen);
      const timer = setTimeout(() => {
        e.rejected++;
        leaveQueue(
          new QueueRejection(
            'RATE_LIMIT_QUEUE_TIMEOUT',
            limits.maxWaitMs,
            `waited ${limits.maxWaitMs} ms in the queue of ${provider}/${connection} without a slot (maxWaitMs)`,
          ),
        );
      }, limits.maxWaitMs);
      const onAbort = () =>
        leaveQueue(
          new QueueRejection('RATE_LIMIT_QUEUE_TIMEOUT', null, 'client disconnected while queued'),
        );
      signal.addEventListener('abort', onAbort, { once: true });
      limiter
        .schedule({ expiration: expirationMs }, () => {
          // A job whose waiter already gave up returns at once and frees its place.
          if (state !== 'waiting') return Promise.resolve();
          state = 'running';
          e.waiting--;
          e.running++;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          e.clusterWaiters.delete(failOpen);
          return new Promise<void>((done) => {
            let released = false;
            finish = () => {
              if (released) return;
              released = true;
              e.running--;
              done();
            };
            resolve({ release: () => finish(), onExpire: (l) => expireListeners.push(l) });
          });
        })
        .catch((err: unknown) => {
          if (!(err instanceof Bottleneck.BottleneckError)) {
            // The team's limiter lost Redis: go ahead without a slot rather than fail (fail-open).
            failOpen();
            return;
          }
          if (state === 'running') {
            // Expired: the attempt must stop; its `finally` releases the slot (already freed).
            finish();
            for (const l of expireListeners) l();
          } else {
            // Dropped while waiting (the queues are closing): answer now, not at maxWaitMs.
            leaveQueue(
              new QueueRejection(
                'RATE_LIMIT_QUEUE_TIMEOUT',
                null,
                `the queue of ${provider}/${connection} closed while the request waited`,
              ),
            );
          }
        });
    });
  }

  /**
   * Adopts a requests-per-minute limit the upstream announced (`x-ratelimit-limit-requests`)
   * for a connection that has none configured.
   */
  learn(
    provider: string,
    connection: string,
    rateLimit: RateLimit,
    headers: Record<string, unknown>,
  ): void {
    if (rateLimit.requestsPerMinute) return;
    const raw =
      headers['x-ratelimit-limit-requests'] ?? headers['anthropic-ratelimit-requests-limit'];
    const rpm = Number(Array.isArray(raw) ? raw[0] : raw);
    if (!Number.isInteger(rpm) || rpm <= 0) return;
    const e = this.entry(provider, connection, rateLimit);
    if (e.learnedRpm === rpm) return;
    e.learnedRpm = rpm;
    this.updateLimits(e);
  }

  views(): QueueView[] {
    return [...this.entries.entries()].map(([key, e]) => {
      const [provider, connection] = key.split('\u0000') as [string, string];
      return { provider, connection, running: e.running, queued: e.waiting, rejected: e.rejected };
    });
  }

  /** Counts a rejection decided elsewhere (execution timeout) for the snapshot. */
  countRejection(provider: string, connection: string): void {
    const e = this.entries.get(`${provider}\u0000${connection}`);
    if (e) e.rejected++;
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      all.flatMap((e) =>
        [e.limiter, e.cluster].map((l) => l?.stop({ dropWaitingJobs: true }).catch(() => {})),
      ),
    );
  }
}
