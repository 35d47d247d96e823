// The last quota each connection's upstream announced (rate-limit headers), for strategies to
// route by and the dashboard to show. The request path only sets a map entry; what changed
// reaches SQLite in a batch a little later, and is loaded again at start. In team mode each
// learnt quota is also sent to the other instances, which keep it only if it is newer.

import type { ConnectionQuotaView } from '../../../shared/contract';
import type { CatalogConnection } from '../config/catalog';
import { LOCAL_STATE, type StateBackend } from '../state/backend';
import type { QuotaRepo } from '../store';
import { emptyQuota, QUOTA_WINDOWS, type Quota, type QuotaWindow } from './rate-limit-headers';

const FLUSH_MS = 2000;
/** A quota record in Redis outlives any reset window it describes, then lapses. */
const SHARED_TTL_MS = 24 * 3_600_000;

function isNumberOrNull(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isFinite(v));
}

function restoreWindow(v: unknown): QuotaWindow | null {
  if (v === null || typeof v !== 'object') return null;
  const { remaining, limit, resetAt } = v as Record<string, unknown>;
  if (!isNumberOrNull(remaining) || !isNumberOrNull(limit) || !isNumberOrNull(resetAt)) return null;
  return { remaining, limit, resetAt };
}

/** A stored quota read back, or null when the row is not one (written by another version). */
export function restoreQuota(v: unknown, learnedAt: number): Quota | null {
  if (v === null || typeof v !== 'object') return null;
  const q = v as Record<string, unknown>;
  const out = emptyQuota(learnedAt);
  for (const k of QUOTA_WINDOWS) out[k] = restoreWindow(q[k]);
  return QUOTA_WINDOWS.some((k) => out[k] !== null) ? out : null;
}

export class QuotaBook {
  private readonly quotas = new Map<string, Quota>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repo: QuotaRepo | null = null,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly shared: StateBackend = LOCAL_STATE,
  ) {
    for (const row of repo?.load() ?? []) {
      const q = restoreQuota(row.quota, row.learnedAt);
      if (q) this.quotas.set(row.connection, q);
    }
    shared.onChange((c) => {
      if (c.kind !== 'quota' || c.value === null || typeof c.value !== 'object') return;
      const learnedAt = (c.value as { learnedAt?: unknown }).learnedAt;
      if (typeof learnedAt !== 'number' || !Number.isFinite(learnedAt)) return;
      const q = restoreQuota(c.value, learnedAt);
      if (q) this.adopt(c.id, q);
    });
  }

  get(connection: string): Quota | undefined {
    return this.quotas.get(connection);
  }

  /** A response announced `quota` for `connection`: kept now, written to the store soon. */
  learn(connection: string, quota: Quota): void {
    this.keep(connection, quota);
    this.shared.put({ kind: 'quota', id: connection, value: quota }, SHARED_TTL_MS);
  }

  /**
   * Another instance learnt `quota`: kept only if newer than the one held (messages can cross),
   * and not sent on, so it does not echo around the team.
   */
  private adopt(connection: string, quota: Quota): void {
    const held = this.quotas.get(connection);
    if (held && held.learnedAt >= quota.learnedAt) return;
    this.keep(connection, quota);
  }

  private keep(connection: string, quota: Quota): void {
    this.quotas.set(connection, quota);
    if (!this.repo) return;
    this.dirty.add(connection);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** The quotas of the connections in the catalog (a removed one's row is kept, not shown). */
  views(connections: ReadonlyMap<string, CatalogConnection>): ConnectionQuotaView[] {
    const out: ConnectionQuotaView[] = [];
    for (const [id, q] of this.quotas) {
      const c = connections.get(id);
      if (c) out.push({ connection: id, provider: c.provider, ...q });
    }
    return out.sort((a, b) => a.connection.localeCompare(b.connection));
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.repo || this.dirty.size === 0) return;
    const rows = [...this.dirty].flatMap((connection) => {
      const quota = this.quotas.get(connection);
      return quota ? [{ connection, quota, learnedAt: quota.learnedAt }] : [];
    });
    this.dirty.clear();
    try {
      this.repo.save(rows);
    } catch (err) {
      this.onError(err);
    }
  }
}
