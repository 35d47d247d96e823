// Team mode's exclusive leases on Redis: the acquire and the generation fence as single Lua
// scripts, so two instances never both grant one connection. Fails open: no answer (null) while
// Redis is unreachable, and the instance decides on its own mirror as without team mode.

import type { ClaimAnswer, FenceAnswer, LeaseClaim, LeaseFence } from './backend';
import type { KeyLayout } from './redis-keys';
import type { AnyRedis } from './redis-target';
import { CLAIM_LEASE, FENCE_LEASE } from './scripts';

interface LeaseScripts {
  bwClaimLease(
    claim: string,
    owner: string,
    previous: string,
    ownerHash: string,
    generation: number,
    ttl: number,
    ownerTtl: number,
  ): Promise<[number, number]>;
  bwFenceLease(
    claim: string,
    owner: string,
    ownerHash: string,
    generation: number,
    ttl: number,
    ownerTtl: number,
  ): Promise<[number, number]>;
}

/** An owner's stored generation outlives its lease this long (it fences the owner's old holders). */
const OWNER_KEPT_MS = 3_600_000;

export class RedisLeases {
  private readonly scripts: LeaseScripts;

  constructor(
    client: AnyRedis,
    private readonly keys: KeyLayout,
    private readonly connected: () => boolean,
    private readonly failed: (err: unknown) => void,
  ) {
    client.defineCommand('bwClaimLease', { numberOfKeys: 3, lua: CLAIM_LEASE });
    client.defineCommand('bwFenceLease', { numberOfKeys: 2, lua: FENCE_LEASE });
    this.scripts = client as unknown as LeaseScripts;
  }

  private claimKey(connection: string): string {
    return this.keys.lease(connection);
  }

  private ownerKey(ownerHash: string): string {
    return this.keys.owner(ownerHash);
  }

  async claim(c: LeaseClaim): Promise<ClaimAnswer | null> {
    if (!this.connected()) return null;
    const ttl = Math.max(1, Math.ceil(c.ttlMs));
    try {
      const [ok, n] = await this.scripts.bwClaimLease(
        this.claimKey(c.connection),
        this.ownerKey(c.ownerHash),
        this.claimKey(c.previous ?? c.connection),
        c.ownerHash,
        c.generation,
        ttl,
        ttl + OWNER_KEPT_MS,
      );
      return ok === 1
        ? { kind: 'granted', generation: n }
        : { kind: 'held', retryAfterMs: Math.max(0, n) };
    } catch (err) {
      this.failed(err);
      return null;
    }
  }

  async fence(f: LeaseFence): Promise<FenceAnswer | null> {
    if (!this.connected()) return null;
    const ttl = f.action === 'release' ? 0 : Math.max(1, Math.ceil(f.ttlMs));
    try {
      const [code, n] = await this.scripts.bwFenceLease(
        this.claimKey(f.connection),
        this.ownerKey(f.ownerHash),
        f.ownerHash,
        f.generation,
        ttl,
        ttl + OWNER_KEPT_MS,
      );
      if (code === 0) return { kind: 'stale', current: n };
      return code === 2 ? { kind: 'taken' } : { kind: 'ok' };
    } catch (err) {
      this.failed(err);
      return null;
    }
  }
}
