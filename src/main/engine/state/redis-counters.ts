// Team mode's shared counters (gateway-key budgets): one script checks every counter of a key
// and counts the request in the same step, so instances cannot all take the last one. Fails
// open: no answer (null) while Redis is unreachable, and the instance counts alone.

import type { CounterAdd, CountersAnswer, SharedCounter } from './backend';
import type { KeyLayout } from './redis-keys';
import type { AnyRedis } from './redis-target';
import { ADMIT_COUNTERS } from './scripts';

interface CounterScripts {
  bwAdmitCounters(...args: Array<string | number>): Promise<[number, string[]]>;
}

export class RedisCounters {
  private readonly scripts: CounterScripts;

  constructor(
    private readonly client: AnyRedis,
    private readonly keys: KeyLayout,
    private readonly connected: () => boolean,
    private readonly failed: (err: unknown) => void,
  ) {
    client.defineCommand('bwAdmitCounters', { lua: ADMIT_COUNTERS });
    this.scripts = client as unknown as CounterScripts;
  }

  private key(id: string): string {
    return this.keys.counter(id);
  }

  async admit(counters: readonly SharedCounter[]): Promise<CountersAnswer | null> {
    if (!this.connected() || counters.length === 0) return null;
    try {
      const [ok, used] = await this.scripts.bwAdmitCounters(
        counters.length,
        ...counters.map((c) => this.key(c.id)),
        ...counters.map((c) => c.max ?? -1),
        Math.max(1, Math.ceil(counters[0]!.ttlMs)),
      );
      return { admitted: ok === 1, used: used.map(Number) };
    } catch (err) {
      this.failed(err);
      return null;
    }
  }

  add(adds: readonly CounterAdd[]): void {
    if (!this.connected()) return;
    const m = this.client.multi();
    for (const a of adds) {
      if (a.by <= 0) continue;
      const key = this.key(a.id);
      if (Number.isInteger(a.by)) m.incrby(key, a.by);
      else m.incrbyfloat(key, a.by);
      m.pexpire(key, Math.max(1, Math.ceil(a.ttlMs)));
    }
    m.exec().catch((err: unknown) => this.failed(err));
  }
}
