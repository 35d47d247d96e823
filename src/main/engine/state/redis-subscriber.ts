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
    sub.on('error', () => {});
    sub.on('ready', () => {
      subscribe().then(handlers.ready, handlers.failed);
    });
    sub.on('close', () => handlers.lost('subscriber connection closed'));
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
