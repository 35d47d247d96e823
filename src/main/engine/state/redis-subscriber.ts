// The subscriber connection of team mode: classic pub/sub on a single Redis or behind Sentinel,
// sharded pub/sub (SSUBSCRIBE, one shard per channel's slot) on a Cluster. Ready means every
// channel is subscribed: a change published before that would be missed.

import type { Cluster } from 'ioredis';
import type { KeyLayout } from './redis-keys';
import type { AnyRedis } from './redis-target';

export class RedisSubscriber {
  private readonly changes: Set<string>;
  private readonly permits: Set<string>;

  constructor(
    private readonly sub: AnyRedis,
    keys: KeyLayout,
    handlers: {
      change(message: string): void;
      permit(scope: string): void;
      ready(): void;
      lost(reason: string): void;
      failed(err: unknown): void;
    },
  ) {
    this.changes = new Set(keys.changeChannels);
    this.permits = new Set(keys.permitChannels);
    const channels = [...keys.changeChannels, ...keys.permitChannels];
    const subscribe = keys.sharded
      ? // A sharded subscription names channels of one slot: one call per channel.
        () => Promise.all(channels.map((c) => (sub as Cluster).ssubscribe(c)))
      : () => sub.subscribe(...channels);
    let ready = false;
    const up = () => {
      ready = true;
      handlers.ready();
    };
    // Only a loss after being ready is an outage (the first connect is not one).
    const lost = (reason: string) => {
      if (!ready) return;
      ready = false;
      handlers.lost(reason);
    };
    sub.on('error', () => {});
    sub.on('ready', () => {
      subscribe().then(up, handlers.failed);
    });
    sub.on('close', () => lost('subscriber connection closed'));
    if (keys.sharded) {
      // One shard's subscriber lost (its primary died): what it would have heard is missed, so
      // this counts as an outage until every shard's subscriber is back (a resync then).
      sub.on('-node', () => lost("a shard's subscriber connection closed"));
      // Said after each reshuffle, even while a dead primary's subscriber still fails: asking
      // again for every channel tells.
      sub.on('subscribersReady', () => {
        if (!ready) subscribe().then(up, () => {});
      });
    }
    const deliver = (channel: string, message: string) => {
      if (this.changes.has(channel)) handlers.change(message);
      else if (this.permits.has(channel)) handlers.permit(message);
    };
    sub.on(keys.sharded ? 'smessage' : 'message', deliver);
  }

  disconnect(): void {
    this.sub.disconnect();
  }
}
