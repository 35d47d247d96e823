// Commands that must reach every primary of a Cluster (one is sent to a single node there):
// reading every record back (the resync after an outage), and asking whether all are back.

import type { Cluster, Redis } from 'ioredis';
import type { AnyRedis } from './redis-target';

function primaries(client: AnyRedis): Redis[] {
  return client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
}

/**
 * Answered when every primary answers (a Cluster is back only when each of its shards is). A
 * Cluster's client is asked for the current layout first: after a failover it can be ready while
 * its own layout still names the primary that died, or lacks the replica that took over.
 */
export async function pingAll(client: AnyRedis): Promise<unknown> {
  if (client.isCluster) {
    const cluster = client as Cluster;
    await new Promise<void>((resolve, reject) =>
      cluster.refreshSlotsCache((err) => (err ? reject(err) : resolve())),
    );
  }
  return Promise.all(primaries(client).map((n) => n.ping()));
}

/** Calls `each` with the field `v` of every hash matching `pattern`, a batch at a time. */
export async function scanValues(
  client: AnyRedis,
  pattern: string,
  each: (value: unknown) => void,
): Promise<void> {
  for (const node of primaries(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      const p = node.pipeline();
      for (const k of keys) p.hget(k, 'v');
      for (const [err, v] of (await p.exec()) ?? []) if (!err) each(v);
    } while (cursor !== '0');
  }
}
