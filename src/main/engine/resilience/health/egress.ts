import type { Catalog } from '../../config/catalog';
import type { Candidate } from '../../routing/resolve';
import { egressFamilyOf } from './error-rules';
import type { EgressSibling } from './failure-policy';

const EGRESS_LOOKBACK_MS = 24 * 3_600_000;
const EGRESS_CACHE_MS = 5 * 60_000;

/**
 * The egress IP each connection last used, for the egress-IP bucketed lock: a free tier limited
 * by IP fails for every connection leaving through the same address, so those siblings cool too
 * instead of each failing in turn. The request log answers what this cache does not hold.
 */
export class EgressMap {
  private readonly cache = new Map<string, { ip: string | null; at: number }>();

  constructor(
    /** Last egress IP a connection used within `sinceMs` (from the request log). */
    private readonly recentEgress: (connection: string, sinceMs: number) => string | null,
  ) {}

  private egressOf(connection: string, now: number): string | null {
    const cached = this.cache.get(connection);
    if (cached && now - cached.at < EGRESS_CACHE_MS) return cached.ip;
    const ip = this.recentEgress(connection, now - EGRESS_LOOKBACK_MS);
    this.cache.set(connection, { ip, at: now });
    return ip;
  }

  /** What a connection just used (from the live request). */
  note(connection: string, ip: string, now: number): void {
    this.cache.set(connection, { ip, at: now });
  }

  forget(connection: string): void {
    this.cache.delete(connection);
  }

  /** The other connections of the same provider family that left through the same IP. */
  siblings(c: Candidate, egressIp: string | null, catalog: Catalog, now: number): EgressSibling[] {
    const family = egressFamilyOf(c.target.provider.id);
    const ip = egressIp ?? this.egressOf(c.connection.id, now);
    if (!family || !ip) return [];
    const out: EgressSibling[] = [];
    for (const p of catalog.providers.values()) {
      if (egressFamilyOf(p.id) !== family) continue;
      for (const sibling of p.connections) {
        if (sibling.id === c.connection.id || sibling.options?.disableCooling) continue;
        if (this.egressOf(sibling.id, now) !== ip) continue;
        out.push({ connection: sibling, authClass: p.authClass });
      }
    }
    return out;
  }
}
