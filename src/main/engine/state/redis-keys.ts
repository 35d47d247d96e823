// The names of team mode's keys and channels. A single Redis (or one behind Sentinel) keeps the
// names every earlier version uses, so a team can upgrade one instance at a time. A Cluster
// needs every key a script touches, and a sharded channel a script publishes on, in one hash
// slot: each name there carries a hash tag (`{…}`) right after the prefix, chosen so that
// scripts stay atomic and the load spreads over the shards:
// - records and semaphores: one of GROUPS tags by their id, each with its own `changes` and
//   `permits` channel in the same slot (a script stores and announces in one step);
// - leases: one tag (a claim names the owner's previous connection, which can be any);
// - budget counters: one tag per gateway key (one script reads all four of a key's counters);
// - request queues: one tag per limiter (Bottleneck's keys `b_<id>_…` then share it).

import { channelPrefix } from './channels';

/** Tags for records and semaphores: enough to spread over the shards of a usual cluster. */
const GROUPS = 16;

/** FNV-1a: a cheap, stable spread of ids over the tags (not a security boundary). */
function spread(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A key a script writes, and the channel it announces the write on. */
export interface Announced {
  key: string;
  channel: string;
}

export interface KeyLayout {
  /** Sharded pub/sub (SPUBLISH/SSUBSCRIBE) instead of the classic one. */
  readonly sharded: boolean;
  record(kind: string, id: string): Announced;
  /** The SCAN pattern of every record. */
  readonly records: string;
  semaphore(scope: string): Announced;
  probe(scope: string): string;
  lease(connection: string): string;
  owner(ownerHash: string): string;
  counter(id: string): string;
  /** A request queue's Bottleneck limiter id. */
  queue(name: string): string;
  /** Every channel records are announced on, and every one semaphore releases are. */
  readonly changeChannels: readonly string[];
  readonly permitChannels: readonly string[];
}

/** A single Redis or Sentinel: the names of every earlier version. */
export function plainLayout(url: string | null, prefix: string): KeyLayout {
  const channels = channelPrefix(url ?? 'redis://x', prefix);
  const changes = `${channels}changes`;
  const permits = `${channels}permits`;
  return {
    sharded: false,
    record: (kind, id) => ({ key: `${prefix}rec:${kind}:${id}`, channel: changes }),
    records: `${prefix}rec:*`,
    semaphore: (scope) => ({ key: `${prefix}sem:${scope}`, channel: permits }),
    probe: (scope) => `${prefix}probe:${scope}`,
    lease: (c) => `${prefix}lease:${c}`,
    owner: (h) => `${prefix}owner:${h}`,
    counter: (id) => `${prefix}count:${id}`,
    queue: (name) => `${prefix}queue:${name}`,
    changeChannels: [changes],
    permitChannels: [permits],
  };
}

/** A Redis Cluster: hash-tagged names, sharded channels. */
export function clusterLayout(prefix: string): KeyLayout {
  const group = (id: string) => `${prefix}{g${spread(id) % GROUPS}}`;
  const all = Array.from({ length: GROUPS }, (_, g) => `${prefix}{g${g}}`);
  // A key's four counters differ only in their last two parts (`<kind>:<window>`).
  const counterTag = (id: string) => spread(id.replace(/:[^:]*:[^:]*$/, '')).toString(36);
  return {
    sharded: true,
    record: (kind, id) => {
      const g = group(`${kind}:${id}`);
      return { key: `${g}rec:${kind}:${id}`, channel: `${g}changes` };
    },
    records: `${prefix}{g*}rec:*`,
    semaphore: (scope) => {
      const g = group(scope);
      return { key: `${g}sem:${scope}`, channel: `${g}permits` };
    },
    probe: (scope) => `${prefix}probe:${scope}`,
    lease: (c) => `${prefix}{lease}lease:${c}`,
    owner: (h) => `${prefix}{lease}owner:${h}`,
    counter: (id) => `${prefix}{c${counterTag(id)}}count:${id}`,
    queue: (name) => `${prefix}{q${spread(name).toString(36)}}queue:${name}`,
    changeChannels: all.map((g) => `${g}changes`),
    permitChannels: all.map((g) => `${g}permits`),
  };
}
