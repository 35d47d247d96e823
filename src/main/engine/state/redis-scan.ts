// Reading every record back (the resync after an outage): SCAN on the one server, or on every
// primary of a Cluster (a SCAN there sees only the node it is sent to).

import { Cluster, type Redis } from 'ioredis';
import type { AnyRedis } from './redis-target';

/** Calls `each` with the field `v` of every hash matching `pattern`, a batch at a time. */
export async function scanValues(
  client: AnyRedis,
  pattern: string,
  each: (value: unknown) => void,
): Promise<void> {
  const nodes: Redis[] = client instanceof Cluster ? client.nodes('master') : [client];
  for (const node of nodes) {
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
