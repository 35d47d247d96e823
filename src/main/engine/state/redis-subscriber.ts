// The subscriber connection of team mode: classic pub/sub on a single Redis or behind Sentinel,
// sharded pub/sub (SSUBSCRIBE, one shard per channel's slot) on a Cluster. Ready means every
// channel is subscribed: a change published before that would be missed.

import type { Cluster } from 'ioredis';
import type { KeyLayout } from './redis-keys';
import type { AnyRedis } from './redis-target';

/** How often a sharded subscription not yet granted everywhere is asked for again. */
const RETRY_MS = 250;
/**
 * Refused this many times in a row while the cluster client says it is ready: its shard
 * subscribers are not coming back by themselves (ioredis does not recreate them when the
 * cluster returns with the same slot map after every node was away), so a new client is made.
 */
const REOPEN_AFTER = 8;

interface Handlers {
  change(message: string): void;
  permit(scope: string): void;
  ready(): void;
  lost(reason: string): void;
  failed(err: unknown): void;
}

export class RedisSubscriber {
  private sub: AnyRedis;
  private ready = false;
  private retry: NodeJS.Timeout | null = null;
  private refusals = 0;
  private closed = false;
  private readonly changes: Set<string>;
  private readonly permits: Set<string>;
  private readonly channels: string[];

  constructor(
    private readonly open: () => AnyRedis,
    private readonly keys: KeyLayout,
    private readonly handlers: Handlers,
  ) {
    this.changes = new Set(keys.changeChannels);
    this.permits = new Set(keys.permitChannels);
    this.channels = [...keys.changeChannels, ...keys.permitChannels];
    this.sub = this.attach(open());
  }

  private up(): void {
    this.ready = true;
    this.refusals = 0;
    this.handlers.ready();
  }

  /** Only a loss after being ready is an outage (the first connect is not one). */
  private lost(reason: string): void {
    if (!this.ready) return;
    this.ready = false;
    this.handlers.lost(reason);
  }

  private attach(sub: AnyRedis): AnyRedis {
    sub.on('error', () => {});
    sub.on('close', () => this.lost('subscriber connection closed'));
    const deliver = (channel: string, message: string) => {
      if (this.changes.has(channel)) this.handlers.change(message);
      else if (this.permits.has(channel)) this.handlers.permit(message);
    };
    if (!this.keys.sharded) {
      sub.on('message', deliver);
      sub.on('ready', () => {
        sub.subscribe(...this.channels).then(
          () => this.up(),
          (err: unknown) => this.handlers.failed(err),
        );
      });
      return sub;
    }
    sub.on('smessage', deliver);
    // One shard's subscriber lost (its primary died): what it would have heard is missed, so
    // this counts as an outage until every shard's subscriber is back (a resync then).
    sub.on('-node', () => {
      this.lost("a shard's subscriber connection closed");
      this.soon();
    });
    // The cluster client is ready before every shard's subscriber is (after a failover they
    // come back one by one): ask for every channel until all are granted.
    sub.on('ready', () => this.soon());
    sub.on('subscribersReady', () => this.soon());
    return sub;
  }

  private soon(): void {
    if (!this.retry && !this.closed) this.retry = setTimeout(() => this.attempt(), 0);
  }

  private attempt(): void {
    this.retry = null;
    const sub = this.sub as Cluster;
    if (this.ready || this.closed || sub.status !== 'ready') return;
    // A sharded subscription names channels of one slot: one call per channel.
    Promise.all(this.channels.map((c) => sub.ssubscribe(c))).then(
      () => {
        if (sub === this.sub) this.up();
      },
      () => {
        if (this.closed || sub !== this.sub) return;
        if (++this.refusals >= REOPEN_AFTER) this.reopen();
        this.retry = setTimeout(() => this.attempt(), RETRY_MS);
      },
    );
  }

  private reopen(): void {
    this.refusals = 0;
    const old = this.sub;
    old.removeAllListeners();
    old.on('error', () => {});
    old.disconnect();
    this.sub = this.attach(this.open());
  }

  disconnect(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.sub.disconnect();
  }
}
