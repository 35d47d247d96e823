// Team mode's backend: records in Redis hashes with Redis expiry, changes announced on one pub/sub
// channel, and the contended transitions (probe permit, cooldown lengthening, semaphore permits)
// as single Lua scripts. Every call fails open: while Redis is unreachable the instance serves on
// its own state, keeps what it learns, and sends it once Redis is back.

import { randomBytes } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { Redis, type RedisOptions, ReplyError } from 'ioredis';
import type { TeamView } from '../../../shared/contract';
import type { Logger } from '../logger';
import {
  type ClaimAnswer,
  type CounterAdd,
  type CountersAnswer,
  type FenceAnswer,
  type LeaseClaim,
  type LeaseFence,
  type LimiterStore,
  NO_SHARED_PERMIT,
  type SharedChange,
  type SharedCounter,
  type SharedPermit,
  type StateBackend,
} from './backend';
import { channelPrefix } from './channels';
import { OutageProbe } from './outage-probe';
import { PeerIntake } from './peer-intake';
import { RedisCounters } from './redis-counters';
import { RedisLeases } from './redis-leases';
import { ACQUIRE, LENGTHEN, PUT, RELEASE, RELEASE_PROBE } from './scripts';

export interface RedisStateOptions {
  url: string;
  keyPrefix: string;
  log: Logger;
  /** A command that takes longer counts as failed (a hung Redis must not hang requests). */
  commandTimeoutMs?: number;
  /** While away with the socket open, Redis is asked (PING) this often whether it is back. */
  probeIntervalMs?: number;
}

interface ScriptClient {
  bwPut(key: string, channel: string, msg: string, ttl: number, del: 0 | 1): Promise<number>;
  bwLengthen(
    key: string,
    channel: string,
    msg: string,
    until: number,
    ttl: number,
  ): Promise<string | null>;
  bwReleaseProbe(key: string, token: string): Promise<number>;
  bwAcquire(key: string, limit: number, token: string, ttl: number): Promise<number>;
  bwRelease(key: string, token: string, channel: string, scope: string): Promise<number>;
}

/** Reconnection backoff: 100 ms doubling to 5 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(Math.max(0, attempt - 1), 6));
}

/** Redis answers these when it cannot serve (loading, busy, replica, auth): an outage. */
const UNAVAILABLE = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOAUTH|WRONGPASS)\b/;

/** An error answer about the data (a wrong type, a script error on a value), not an outage. */
function isBadData(err: unknown): boolean {
  return err instanceof ReplyError && !UNAVAILABLE.test((err as Error).message);
}

/** A semaphore waiter also looks again this often (a release message can be missed). */
const PERMIT_POLL_MS = 100;

export class RedisState implements StateBackend {
  readonly kind = 'redis' as const;
  /** Tells this instance's own announcements from the others'. */
  readonly instance = randomBytes(8).toString('hex');
  private readonly client: Redis;
  private readonly scripts: ScriptClient;
  private readonly sub: Redis;
  private readonly changes: string;
  private readonly permits: string;
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
  private readonly waiters = new Map<string, Set<() => void>>();
  private limiters: LimiterStore | null = null;
  private readonly leases: RedisLeases;
  private readonly counters: RedisCounters;
  private readonly intake: PeerIntake;
  private seq = 0;
  private closed = false;

  constructor(private readonly opts: RedisStateOptions) {
    this.intake = new PeerIntake(opts.log);
    const channels = channelPrefix(opts.url, opts.keyPrefix);
    this.changes = `${channels}changes`;
    this.permits = `${channels}permits`;
    this.client = new Redis(opts.url, this.clientOptions(false));
    this.client.defineCommand('bwPut', { numberOfKeys: 1, lua: PUT });
    this.client.defineCommand('bwLengthen', { numberOfKeys: 1, lua: LENGTHEN });
    this.client.defineCommand('bwReleaseProbe', { numberOfKeys: 1, lua: RELEASE_PROBE });
    this.client.defineCommand('bwAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    this.client.defineCommand('bwRelease', { numberOfKeys: 1, lua: RELEASE });
    this.scripts = this.client as unknown as ScriptClient;
    this.outage = new OutageProbe(
      () => this.client.ping(),
      () => this.maybeUp(),
      opts.probeIntervalMs ?? 1_000,
    );
    const connected = () => this.status === 'connected';
    const failed = (err: unknown) => this.failed(err);
    this.leases = new RedisLeases(this.client, opts.keyPrefix, connected, failed);
    this.counters = new RedisCounters(this.client, opts.keyPrefix, connected, failed);
    this.client.on('ready', () => {
      this.clientReady = true;
      this.maybeUp();
    });
    this.client.on('close', () => {
      this.clientReady = false;
      this.down('connection closed');
    });
    this.client.on('error', (err: Error) => this.down(err.message));
    // Connected means subscribed too: a change published before that would be missed.
    this.sub = new Redis(opts.url, this.clientOptions(true));
    this.sub.on('error', () => {});
    this.sub.on('ready', () => {
      this.sub.subscribe(this.changes, this.permits).then(
        () => {
          this.subscribed = true;
          this.maybeUp();
        },
        (err: unknown) => this.failed(err),
      );
    });
    this.sub.on('close', () => {
      this.subscribed = false;
      this.down('subscriber connection closed');
    });
    this.sub.on('message', (channel: string, message: string) => {
      if (channel === this.changes) this.deliver(message, false);
      else if (channel === this.permits) this.wake(message);
    });
  }

  private maybeUp(): void {
    if (this.clientReady && this.subscribed) this.up();
  }

  private clientOptions(subscriber: boolean): RedisOptions {
    return {
      // Fail at once while disconnected rather than queue: the caller falls back to local state.
      enableOfflineQueue: subscriber,
      maxRetriesPerRequest: subscriber ? null : 0,
      ...(subscriber ? {} : { commandTimeout: this.opts.commandTimeoutMs ?? 500 }),
      connectTimeout: 2_000,
      retryStrategy: (attempt: number) => (this.closed ? null : reconnectDelayMs(attempt)),
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
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(
        cursor,
        'MATCH',
        `${this.opts.keyPrefix}rec:*`,
        'COUNT',
        500,
      );
      cursor = next;
      if (keys.length === 0) continue;
      const p = this.client.pipeline();
      for (const k of keys) p.hget(k, 'v');
      for (const [err, v] of (await p.exec()) ?? []) if (!err) this.deliver(v, false);
    } while (cursor !== '0');
    const resend = [...this.pending.values()];
    this.pending.clear();
    for (const r of resend) r();
  }

  private deliver(raw: unknown, own: boolean): void {
    const m = this.intake.read(raw);
    if (!m || (!own && m.from === this.instance)) return;
    for (const l of this.changeListeners) l(m.change);
  }

  /** A command failed: Redis is away, unless Redis answered (then what it holds is bad data). */
  private failed(err: unknown): void {
    if (isBadData(err)) this.intake.reject(err);
    else this.down(err instanceof Error ? err.message : String(err));
  }

  // ---------------------------------------------------------------- records

  private recordKey(c: SharedChange): string {
    return `${this.opts.keyPrefix}rec:${c.kind}:${c.id}`;
  }

  private message(c: SharedChange): string {
    return JSON.stringify({ from: this.instance, kind: c.kind, id: c.id, v: c.value });
  }

  /** Runs a write now, or keeps it (the latest per record) for the reconnect. */
  private write(c: SharedChange, send: () => Promise<unknown>): void {
    const key = this.recordKey(c);
    const again = () => this.write(c, send);
    if (this.status !== 'connected') {
      this.pending.set(key, again);
      return;
    }
    send().catch((err: unknown) => {
      // Kept for the reconnect only when Redis was away: a refused record would be refused again.
      if (!isBadData(err)) this.pending.set(key, again);
      this.failed(err);
    });
  }

  put(c: SharedChange, ttlMs: number | null): void {
    this.write(c, () =>
      this.scripts.bwPut(
        this.recordKey(c),
        this.changes,
        this.message(c),
        ttlMs === null ? 0 : Math.max(1, Math.ceil(ttlMs)),
        c.value === null ? 1 : 0,
      ),
    );
  }

  lengthen(c: SharedChange, until: number, ttlMs: number): void {
    this.write(c, async () => {
      const stored = await this.scripts.bwLengthen(
        this.recordKey(c),
        this.changes,
        this.message(c),
        until,
        Math.max(1, Math.ceil(ttlMs)),
      );
      // A longer cooldown was already stored: this instance adopts it.
      if (stored !== null) this.deliver(stored, true);
    });
  }

  // ---------------------------------------------------------------- probe permit

  async probe(scope: string, ttlMs: number): Promise<string | null> {
    // No Redis: the local breaker's own permit is the only one (fail-open).
    if (this.status !== 'connected') return 'local';
    const token = `${this.instance}:${++this.seq}`;
    try {
      const ok = await this.client.set(
        `${this.opts.keyPrefix}probe:${scope}`,
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
      .bwReleaseProbe(`${this.opts.keyPrefix}probe:${scope}`, token)
      .catch((err: unknown) => this.failed(err));
  }

  // ---------------------------------------------------------------- semaphore

  async permit(
    scope: string,
    limit: number,
    ttlMs: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<SharedPermit> {
    const key = `${this.opts.keyPrefix}sem:${scope}`;
    const token = `${this.instance}:${++this.seq}`;
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const end = Date.now() + waitMs;
    for (;;) {
      if (this.status !== 'connected' || signal.aborted) return NO_SHARED_PERMIT;
      try {
        if ((await this.scripts.bwAcquire(key, limit, token, ttl)) === 1)
          return this.held(key, scope, token);
      } catch (err) {
        this.failed(err);
        return NO_SHARED_PERMIT;
      }
      const left = end - Date.now();
      // Waited long enough: go ahead without a permit, as the local semaphore does.
      if (left <= 0) return NO_SHARED_PERMIT;
      await this.released(scope, Math.min(PERMIT_POLL_MS, left), signal);
    }
  }

  private held(key: string, scope: string, token: string): SharedPermit {
    let released = false;
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        // A release that cannot be sent lapses with the permit's expiry.
        this.scripts
          .bwRelease(key, token, this.permits, scope)
          .catch((err: unknown) => this.failed(err));
      },
    };
  }

  /** Resolves when a permit of `scope` is released anywhere, after `ms`, or on abort. */
  private released(scope: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(scope);
      if (!set) {
        set = new Set();
        this.waiters.set(scope, set);
      }
      const waiters = set;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(scope);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      waiters.add(done);
    });
  }

  private wake(scope: string): void {
    for (const w of [...(this.waiters.get(scope) ?? [])]) w();
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
      const client = new Redis(this.opts.url, this.clientOptions(false));
      client.on('error', () => {});
      const connection = new Bottleneck.IORedisConnection({ client });
      connection.on('error', () => {});
      this.limiters = {
        connection,
        idPrefix: `${this.opts.keyPrefix}queue:`,
        usable: () => this.status === 'connected',
      };
    }
    return this.limiters;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outage.stop();
    for (const set of this.waiters.values()) for (const w of [...set]) w();
    await this.limiters?.connection.disconnect(false);
    this.client.disconnect();
    this.sub.disconnect();
  }
}
