import type { QueueView, SessionView } from '../../../../shared/contract';
import type { BoundedMaps } from '../../bounded-map';
import type { CatalogConnection } from '../../config/catalog';
import type { Logger } from '../../logger';
import type { Settings } from '../../settings/settings';
import { LOCAL_STATE, type SharedPermit, type StateBackend } from '../../state/backend';
import type { SessionPinRepo } from '../../store';
import { MAX_SESSION_PINS, SessionAffinity } from '../affinity';
import { DeferredFlush } from '../deferred-flush';
import { effectiveExpiration, type QueueLimits, resolveLimits } from './admission';
import { NO_RATE_LIMIT, QueueRejection, type QueueSlot, RequestQueues } from './request-queue';
import { type Permit, Semaphore, type SemaphoreOptions } from './semaphore';

export interface FlowDeps {
  settings: Settings;
  pins: SessionPinRepo;
  log: Logger;
  now(): number;
  flushIntervalMs?: number;
  /** Where else the state lives (team mode): `maxConcurrent`, queues and pins are then shared. */
  shared?: StateBackend;
  /** The engine's bounded maps: the session pins are one. */
  maps?: BoundedMaps;
}

/** What an attempt holds while it runs; released once in `finally`, safe twice. */
export interface FlowHold {
  permit: Permit;
  slot: QueueSlot;
  release(): void;
}

class Hold implements FlowHold {
  constructor(
    readonly permit: Permit,
    readonly slot: QueueSlot,
    private readonly team: SharedPermit | null = null,
  ) {}

  release(): void {
    this.slot.release();
    this.team?.release();
    this.permit.release();
  }
}

/** A team permit outlives its attempt's deadline by this much (then it lapses in Redis). */
const TEAM_PERMIT_GRACE_MS = 5_000;

/**
 * Flow control in front of each connection (RESILIENCE.md §4, §5, §9): the `maxConcurrent`
 * semaphore, the Bottleneck request queue, and session affinity pins. Pins are written to
 * SQLite in batches off the request path.
 */
export class FlowControl {
  private readonly semaphores = new Map<string, Semaphore>();
  readonly queues: RequestQueues;
  private readonly shared: StateBackend;
  readonly affinity: SessionAffinity;
  private readonly flusher: DeferredFlush;
  // Read for every attempt: computed once per settings change.
  private readonly concurrency: () => { enabled: boolean; options: SemaphoreOptions };
  private readonly queueLimits: () => Readonly<QueueLimits>;
  private readonly ttlMs: () => number;

  constructor(private readonly deps: FlowDeps) {
    this.flusher = new DeferredFlush(deps.flushIntervalMs ?? 1_000, () => this.flush());
    this.shared = deps.shared ?? LOCAL_STATE;
    this.queues = new RequestQueues(this.shared.limiterStore(), deps.log);
    this.concurrency = deps.settings.derived((s) => ({
      enabled: s.boolean('concurrencyLimit.enabled'),
      options: {
        maxWaiting: s.number('concurrencyLimit.maxWaiting'),
        waitTimeoutMs: s.number('concurrencyLimit.waitTimeoutMs'),
      },
    }));
    this.queueLimits = deps.settings.derived((s) =>
      resolveLimits(
        {
          maxWaitMs: s.number('rateLimit.maxWaitMs'),
          executionMaxWaitMs: s.number('rateLimit.executionMaxWaitMs'),
          maxQueueDepth: s.number('rateLimit.maxQueueDepth'),
        },
        undefined,
      ),
    );
    this.ttlMs = deps.settings.derived((s) => s.number('sessionAffinityTtlMs'));
    this.affinity = new SessionAffinity(deps.pins.load(deps.now(), MAX_SESSION_PINS), {
      ttlMs: this.ttlMs,
      ...(deps.maps ? { maps: deps.maps } : {}),
    });
    this.shared.onChange((c) => {
      if (c.kind !== 'pin') return;
      const connection = (c.value as { connection: string } | null)?.connection;
      if (connection) this.affinity.pin(c.id, connection, deps.now());
      this.scheduleFlush();
    });
  }

  /** In team mode a `maxConcurrent` limit holds across instances (a Redis semaphore). */
  private teamLimit(conn: CatalogConnection): number {
    if (this.shared.kind === 'local' || !this.concurrency().enabled) return 0;
    return conn.maxConcurrent ?? 0;
  }

  private semaphore(conn: CatalogConnection): Semaphore {
    const { enabled, options } = this.concurrency();
    const limit = enabled ? (conn.maxConcurrent ?? 0) : 0;
    let sem = this.semaphores.get(conn.id);
    if (!sem) {
      sem = new Semaphore(limit, options);
      this.semaphores.set(conn.id, sem);
    } else {
      sem.setLimit(limit);
    }
    return sem;
  }

  /** True when the connection is at its `maxConcurrent` (routing tries it last). */
  saturated(conn: CatalogConnection): boolean {
    return this.semaphores.get(conn.id)?.saturated ?? false;
  }

  /** True when the connection's request queue would refuse a new request for being full. */
  queueFull(provider: string, conn: CatalogConnection): boolean {
    return this.queues.full(
      provider,
      conn.id,
      conn.options?.rateLimit ?? NO_RATE_LIMIT,
      this.limits(conn),
    );
  }

  limits(conn: CatalogConnection): Readonly<QueueLimits> {
    const overrides = conn.options?.rateLimitOverrides;
    return overrides ? resolveLimits(this.queueLimits(), overrides) : this.queueLimits();
  }

  /**
   * Takes the `maxConcurrent` permit (FIFO, fail-open), then a request-queue slot, or answers
   * the queue's refusal as a QueueRejection value. `onExpire` fires if the queue's execution
   * limit ends the job. `cancel.signal` (client gone, deadline) ends a wait; it is read only when
   * there is one. Nothing to wait for is the common case: then both are taken at once and the
   * hold is returned as it is, without a promise or a turn of the event loop.
   */
  hold(
    provider: string,
    conn: CatalogConnection,
    upstreamTotalMs: number,
    cancel: { readonly signal: AbortSignal },
    onExpire: () => void,
  ): FlowHold | Promise<FlowHold | QueueRejection> {
    const permit = this.semaphore(conn).tryAcquire();
    if (!permit || this.teamLimit(conn) > 0)
      return this.wait(permit, provider, conn, upstreamTotalMs, cancel, onExpire);
    const slot = this.queues.tryAcquire(
      provider,
      conn.id,
      conn.options?.rateLimit ?? NO_RATE_LIMIT,
      this.limits(conn),
    );
    if (!slot) return this.wait(permit, provider, conn, upstreamTotalMs, cancel, onExpire);
    slot.onExpire(onExpire);
    return new Hold(permit, slot);
  }

  /** The hold, waiting in line for what is not free: the permit (unless held), then a slot. */
  private async wait(
    held: Permit | null,
    provider: string,
    conn: CatalogConnection,
    upstreamTotalMs: number,
    cancel: { readonly signal: AbortSignal },
    onExpire: () => void,
  ): Promise<FlowHold | QueueRejection> {
    const permit = held ?? (await this.semaphore(conn).acquire(cancel.signal));
    if (permit.bypass === 'wait_timeout' || permit.bypass === 'queue_full') {
      this.deps.log.debug(
        `flow: ${conn.id} maxConcurrent ${permit.bypass}; going ahead without a slot`,
      );
    }
    const limits = this.limits(conn);
    // The permit is held through the queue's wait and the attempt, and lapses after both.
    const team = await this.teamPermit(conn, limits.maxWaitMs + upstreamTotalMs, cancel.signal);
    const rateLimit = conn.options?.rateLimit ?? NO_RATE_LIMIT;
    const slot =
      this.queues.tryAcquire(provider, conn.id, rateLimit, limits) ??
      (await this.queues.acquire(
        provider,
        conn.id,
        rateLimit,
        limits,
        effectiveExpiration(limits, upstreamTotalMs),
        cancel.signal,
      ));
    if (slot instanceof QueueRejection) {
      team?.release();
      permit.release();
      return slot;
    }
    slot.onExpire(onExpire);
    return new Hold(permit, slot, team);
  }

  /** The team's permit after this instance's own: it expires with the attempt's deadline. */
  private async teamPermit(
    conn: CatalogConnection,
    holdMs: number,
    signal: AbortSignal,
  ): Promise<SharedPermit | null> {
    const limit = this.teamLimit(conn);
    if (limit <= 0) return null;
    const p = await this.shared.permit(
      `conn:${conn.id}`,
      limit,
      holdMs + TEAM_PERMIT_GRACE_MS,
      this.concurrency().options.waitTimeoutMs,
      signal,
    );
    if (!p.held && !signal.aborted)
      this.deps.log.debug(`flow: ${conn.id} team maxConcurrent not held; going ahead (fail-open)`);
    return p;
  }

  // ------------------------------------------------------------------ affinity

  pinned(session: string, now: number): string | null {
    const c = this.affinity.pinned(session, now);
    this.scheduleFlush();
    return c;
  }

  pin(session: string, connection: string, now: number): void {
    const ttl = this.ttlMs();
    // Peers learn a new or moved pin; refreshing the same pin stays local (no write per request).
    if (this.shared.kind !== 'local' && this.affinity.pinned(session, now) !== connection)
      this.shared.put({ kind: 'pin', id: session, value: { connection } }, ttl);
    this.affinity.pin(session, connection, now);
    this.scheduleFlush();
  }

  sessions(now: number): SessionView[] {
    return this.affinity.views(now);
  }

  queueViews(): QueueView[] {
    return this.queues.views();
  }

  private scheduleFlush(): void {
    if (this.affinity.dirty.size > 0) this.flusher.schedule();
  }

  flush(): void {
    const batch = this.affinity.takeDirty();
    if (batch.size === 0) return;
    try {
      this.deps.pins.save(batch, this.deps.now());
    } catch (err) {
      this.deps.log.error(`session pins not saved: ${String(err)}`);
    }
  }

  async close(): Promise<void> {
    this.flusher.flushNow();
    await this.queues.close();
  }
}
