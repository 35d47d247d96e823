// Team mode's cross-instance semaphore (`maxConcurrent`): a permit is taken by one script over
// a sorted set scored by each permit's expiry on Redis's clock, and given back by another that
// announces the release, so a waiter on any instance looks again at once.

import { NO_SHARED_PERMIT, type SharedPermit } from './backend';
import type { KeyLayout } from './redis-keys';
import type { AnyRedis } from './redis-target';
import { ACQUIRE, RELEASE } from './scripts';

interface SemaphoreScripts {
  bwAcquire(key: string, limit: number, token: string, ttl: number): Promise<number>;
  bwRelease(
    key: string,
    token: string,
    channel: string,
    scope: string,
    cmd: string,
  ): Promise<number>;
}

/** A waiter also looks again this often (a release message can be missed). */
const PERMIT_POLL_MS = 100;

export class RedisSemaphore {
  private readonly scripts: SemaphoreScripts;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    client: AnyRedis,
    private readonly keys: KeyLayout,
    private readonly token: () => string,
    private readonly connected: () => boolean,
    private readonly failed: (err: unknown) => void,
  ) {
    client.defineCommand('bwAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    client.defineCommand('bwRelease', { numberOfKeys: 1, lua: RELEASE });
    this.scripts = client as unknown as SemaphoreScripts;
  }

  async permit(
    scope: string,
    limit: number,
    ttlMs: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<SharedPermit> {
    const at = this.keys.semaphore(scope);
    const token = this.token();
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const end = Date.now() + waitMs;
    for (;;) {
      if (!this.connected() || signal.aborted) return NO_SHARED_PERMIT;
      try {
        if ((await this.scripts.bwAcquire(at.key, limit, token, ttl)) === 1)
          return this.held(at.key, at.channel, scope, token);
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

  private held(key: string, channel: string, scope: string, token: string): SharedPermit {
    let released = false;
    const cmd = this.keys.sharded ? 'SPUBLISH' : 'PUBLISH';
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        // A release that cannot be sent lapses with the permit's expiry.
        this.scripts
          .bwRelease(key, token, channel, scope, cmd)
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

  /** A release was announced (by any instance). */
  wake(scope: string): void {
    for (const w of [...(this.waiters.get(scope) ?? [])]) w();
  }

  /** Closing: every waiter goes ahead (without a permit). */
  wakeAll(): void {
    for (const set of this.waiters.values()) for (const w of [...set]) w();
  }
}
