// Team mode's backend: records in Redis hashes with Redis expiry, changes announced on pub/sub,
// and the contended transitions (probe permit, cooldown lengthening, semaphore permits) as
// single Lua scripts. Every call fails open: while Redis is unreachable the instance serves on
// its own state, keeps what it learns, and sends it once Redis is back. The same on a single
// Redis, a Cluster or behind Sentinel (redis-target.ts); only the key names differ.

import { randomBytes } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { TeamView } from '../../../shared/contract';
import type { PeerMessage } from '../../../shared/schema/peer-records';
import { ioredis } from '../lazy-module';
import type { Logger } from '../logger';
import type {
  ClaimAnswer,
  CounterAdd,
  CountersAnswer,
  FenceAnswer,
  LeaseClaim,
  LeaseFence,
  LimiterStore,
  SharedChange,
  SharedCounter,
  SharedPermit,
  StateBackend,
} from './backend';
import { OutageProbe } from './outage-probe';
import { PeerIntake } from './peer-intake';
import { RedisCounters } from './redis-counters';
import { clusterLayout, type KeyLayout, plainLayout } from './redis-keys';
import { RedisLeases } from './redis-leases';
import { pingAll, scanValues } from './redis-scan';
import { RedisSemaphore } from './redis-semaphore';
import { RedisSubscriber } from './redis-subscriber';
import { type AnyRedis, type ConnectOptions, openClient, type RedisTarget } from './redis-target';
import { type Publish, recordScripts, type ScriptClient } from './scripts';

export interface RedisStateOptions {
  /** Where Redis is; `url` alone is a single Redis. */
  target?: RedisTarget;
  url?: string;
  keyPrefix: string;
  log: Logger;
  /** A command that takes longer counts as failed (a hung Redis must not hang requests). */
  commandTimeoutMs?: number;
  /** While away with the socket open, Redis is asked (PING) this often whether it is back. */
  probeIntervalMs?: number;
}

/** What an outage is logged as: a failed command's message. */
function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Reconnection backoff: 100 ms doubling to 5 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(Math.max(0, attempt - 1), 6));
}

/** Redis answers these when it cannot serve (loading, busy, replica, auth, failover): an outage. */
const UNAVAILABLE =
  /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOAUTH|WRONGPASS|MOVED|ASK)\b/;

/** An error answer about the data (a wrong type, a script error on a value), not an outage. */
function isBadData(err: unknown): boolean {
  return err instanceof ioredis().ReplyError && !UNAVAILABLE.test((err as Error).message);
}

export class RedisState implements StateBackend {
  readonly kind = 'redis' as const;
  /** Tells this instance's own announcements from the others'. */
  readonly instance = randomBytes(8).toString('hex');
  private readonly target: RedisTarget;
  private readonly keys: KeyLayout;
  private readonly publish: Publish;
  private readonly client: AnyRedis;
  private readonly scripts: ScriptClient;
  private readonly sub: RedisSubscriber;
  private status: TeamView['status'] = 'degraded';
  private clientReady = false;
  private subscribed = false;
  private outageLogged = false;
  /** When the current outage began (null while connected, and before the first connect). */
  private downSince: number | null = null;
  private readonly outage: OutageProbe;
  private readonly changeListeners: Array<(c: SharedChange) => void> = [];
  private readonly statusListeners: Array<(v: TeamView) => void> = [];
  /** What this instance learnt while Redis was away, by record: sent again on reconnect. */
  private readonly pending = new Map<string, () => void>();
  /** The records peers announced during each resync now reading (see `resync`). */
  private readonly resyncs = new Set<Set<string>>();
  /** The write of each record last sent and not yet answered, by record. */
  private readonly inFlight = new Map<string, () => void>();
  private limiters: LimiterStore | null = null;
  private readonly semaphore: RedisSemaphore;
  private readonly leases: RedisLeases;
  private readonly counters: RedisCounters;
  private readonly intake: PeerIntake;
  private seq = 0;
  private closed = false;

  constructor(private readonly opts: RedisStateOptions) {
    this.intake = new PeerIntake(opts.log);
    const target = opts.target ?? (opts.url ? { kind: 'single' as const, url: opts.url } : null);
    if (!target) throw new Error('RedisState needs a target or a url');
    this.target = target;
    this.keys =
      target.kind === 'cluster'
        ? clusterLayout(opts.keyPrefix)
        : plainLayout(target.kind === 'single' ? target.url : null, opts.keyPrefix);
    this.publish = this.keys.sharded ? 'SPUBLISH' : 'PUBLISH';
    this.client = openClient(target, this.connectOptions(false));
    this.scripts = recordScripts(this.client);
    this.outage = new OutageProbe(
      () => pingAll(this.client),
      () => this.upIfReady(),
      (err) => this.down(reasonOf(err)),
      opts.probeIntervalMs ?? 1_000,
    );
    const connected = () => this.status === 'connected';
    const failed = (err: unknown) => this.failed(err);
    const token = () => `${this.instance}:${++this.seq}`;
    this.semaphore = new RedisSemaphore(this.client, this.keys, token, connected, failed);
    this.leases = new RedisLeases(this.client, this.keys, connected, failed);
    this.counters = new RedisCounters(this.client, this.keys, connected, failed);
    this.client.on('ready', () => {
      this.clientReady = true;
      this.maybeUp();
    });
    this.client.on('close', () => {
      this.clientReady = false;
      this.down('connection closed');
    });
    this.client.on('error', (err: Error) => this.down(err.message));
    this.sub = new RedisSubscriber(
      () => openClient(target, this.connectOptions(true), true),
      this.keys,
      {
        change: (m) => this.hear(m),
        permit: (scope) => this.semaphore.wake(scope),
        ready: () => {
          this.subscribed = true;
          this.maybeUp();
        },
        lost: (reason) => {
          this.subscribed = false;
          this.down(reason);
        },
        failed,
      },
    );
  }

  /**
   * Both connections are ready again: back once every primary answers (the probe asks). Declared
   * on `ready` alone, a Cluster's resync could meet a primary that died in the failover, and the
   * status would go back and forth.
   */
  private maybeUp(): void {
    if (this.clientReady && this.subscribed && this.status !== 'connected' && !this.closed) {
      this.outage.askNow();
    }
  }

  private upIfReady(): void {
    if (this.clientReady && this.subscribed) this.up();
  }

  private connectOptions(subscriber: boolean): ConnectOptions {
    return {
      // Fail at once while disconnected rather than queue: the caller falls back to local state.
      enableOfflineQueue: subscriber,
      maxRetriesPerRequest: subscriber ? null : 0,
      ...(subscriber ? {} : { commandTimeout: this.opts.commandTimeoutMs ?? 500 }),
      connectTimeout: 2_000,
      retryStrategy: (attempt: number) => (this.closed ? null : reconnectDelayMs(attempt)),
      closed: () => this.closed,
    };
  }

  droppedPeerRecords(): number {
    return this.intake.dropped;
  }

  view(): TeamView {
    return { backend: 'redis', status: this.status };
  }

  onChange(listener: (c: SharedChange) => void): void {
    this.changeListeners.push(listener);
  }

  onStatus(listener: (v: TeamView) => void): void {
    this.statusListeners.push(listener);
  }

  // ---------------------------------------------------------------- connection state

  private up(): void {
    if (this.status === 'connected') return;
    this.status = 'connected';
    this.outage.stop();
    this.outageLogged = false;
    if (this.downSince === null) this.opts.log.info('team state connected (Redis)');
    else {
      const s = ((Date.now() - this.downSince) / 1000).toFixed(1);
      this.opts.log.info(
        `team state back (Redis, unavailable for ${s} s); resending what was learnt meanwhile`,
      );
    }
    this.downSince = null;
    for (const l of this.statusListeners) l(this.view());
    this.resync().catch((err: unknown) => this.down(String(err)));
  }

  private down(reason: string): void {
    if (this.closed) return;
    if (!this.outageLogged) {
      this.outageLogged = true;
      this.opts.log.warn(
        `team state unavailable (Redis: ${reason}); serving on local state, retrying`,
      );
    }
    if (this.status === 'degraded') return;
    this.status = 'degraded';
    this.downSince = Date.now();
    // A closed socket comes back with a `ready`; an open one that stopped answering is asked.
    this.outage.start();
    for (const l of this.statusListeners) l(this.view());
  }

  /** Back after an outage (or the first connect): take what the others learnt, send ours. */
  private async resync(): Promise<void> {
    // A record a peer's message named while this read runs: what was read may be older (the
    // message can arrive before the read's answer, on the other connection), so it is passed.
    const heard = new Set<string>();
    this.resyncs.add(heard);
    try {
      await scanValues(this.client, this.keys.records, (v) => {
        const m = this.fromPeer(v);
        if (m && !heard.has(this.recordKey(m.change))) this.emit(m.change);
      });
    } finally {
      this.resyncs.delete(heard);
    }
    const resend = [...this.pending.values()];
    this.pending.clear();
    for (const r of resend) r();
  }

  /** A peer's change as announced (pub/sub). */
  private hear(raw: unknown): void {
    const m = this.fromPeer(raw);
    if (!m) return;
    for (const heard of this.resyncs) heard.add(this.recordKey(m.change));
    this.emit(m.change);
  }

  /** A checked message of another instance, or null (bad data, or this instance's own). */
  private fromPeer(raw: unknown): PeerMessage | null {
    const m = this.intake.read(raw);
    return m && m.from !== this.instance ? m : null;
  }

  private emit(c: SharedChange): void {
    for (const l of this.changeListeners) l(c);
  }

  /** A command failed: Redis is away, unless Redis answered (then what it holds is bad data). */
  private failed(err: unknown): void {
    if (isBadData(err)) this.intake.reject(err);
    else this.down(reasonOf(err));
  }

  // ---------------------------------------------------------------- records

  private recordKey(c: SharedChange): string {
    return this.keys.record(c.kind, c.id).key;
  }

  private message(c: SharedChange): string {
    return JSON.stringify({ from: this.instance, kind: c.kind, id: c.id, v: c.value });
  }

  /**
   * Runs a write now, or keeps it (the latest per record) for the reconnect. Only the latest
   * write of a record is ever kept: one kept from before would overwrite, team-wide, what was
   * written since.
   */
  private write(c: SharedChange, send: () => Promise<unknown>): void {
    const key = this.recordKey(c);
    const again = () => this.write(c, send);
    if (this.status !== 'connected') {
      this.inFlight.delete(key);
      this.pending.set(key, again);
      return;
    }
    this.pending.delete(key);
    this.inFlight.set(key, again);
    send().then(
      () => {
        if (this.inFlight.get(key) === again) this.inFlight.delete(key);
      },
      (err: unknown) => {
        const latest = this.inFlight.get(key) === again;
        if (latest) this.inFlight.delete(key);
        // Kept only when Redis was away (a refused record would be refused again).
        if (latest && !isBadData(err)) this.pending.set(key, again);
        this.failed(err);
      },
    );
  }

  put(c: SharedChange, ttlMs: number | null): void {
    const at = this.keys.record(c.kind, c.id);
    this.write(c, () =>
      this.scripts.bwPut(
        at.key,
        at.channel,
        this.message(c),
        ttlMs === null ? 0 : Math.max(1, Math.ceil(ttlMs)),
        c.value === null ? 1 : 0,
        this.publish,
      ),
    );
  }

  lengthen(c: SharedChange, until: number, ttlMs: number): void {
    const at = this.keys.record(c.kind, c.id);
    this.write(c, async () => {
      const stored = await this.scripts.bwLengthen(
        at.key,
        at.channel,
        this.message(c),
        until,
        Math.max(1, Math.ceil(ttlMs)),
        this.publish,
      );
      // A longer cooldown was already stored: this instance adopts it.
      const kept = stored === null ? null : this.intake.read(stored);
      if (kept) this.emit(kept.change);
    });
  }

  // ---------------------------------------------------------------- probe permit

  async probe(scope: string, ttlMs: number): Promise<string | null> {
    // No Redis: the local breaker's own permit is the only one (fail-open).
    if (this.status !== 'connected') return 'local';
    const token = `${this.instance}:${++this.seq}`;
    try {
      const ok = await this.client.set(
        this.keys.probe(scope),
        token,
        'PX',
        Math.max(1, Math.ceil(ttlMs)),
        'NX',
      );
      return ok === 'OK' ? token : null;
    } catch (err) {
      this.failed(err);
      return 'local';
    }
  }

  releaseProbe(scope: string, token: string): void {
    if (token === 'local' || this.status !== 'connected') return;
    this.scripts
      .bwReleaseProbe(this.keys.probe(scope), token)
      .catch((err: unknown) => this.failed(err));
  }

  // ---------------------------------------------------------------- semaphore

  permit(
    scope: string,
    limit: number,
    ttlMs: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<SharedPermit> {
    return this.semaphore.permit(scope, limit, ttlMs, waitMs, signal);
  }

  claimLease(c: LeaseClaim): Promise<ClaimAnswer | null> {
    return this.leases.claim(c);
  }

  fenceLease(f: LeaseFence): Promise<FenceAnswer | null> {
    return this.leases.fence(f);
  }

  admitCounters(counters: readonly SharedCounter[]): Promise<CountersAnswer | null> {
    return this.counters.admit(counters);
  }

  addCounters(adds: readonly CounterAdd[]): void {
    this.counters.add(adds);
  }

  // ---------------------------------------------------------------- request queues

  limiterStore(): LimiterStore {
    if (!this.limiters) {
      // Bottleneck opens its subscriber as a copy of this client (a Cluster's too).
      const client = openClient(this.target, this.connectOptions(false));
      client.on('error', () => {});
      const connection = new Bottleneck.IORedisConnection({ client });
      connection.on('error', () => {});
      const keys = this.keys;
      this.limiters = {
        connection,
        id: (name) => keys.queue(name),
        usable: () => this.status === 'connected',
      };
    }
    return this.limiters;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outage.stop();
    this.semaphore.wakeAll();
    await this.limiters?.connection.disconnect(false);
    this.client.disconnect();
    this.sub.disconnect();
  }
}
