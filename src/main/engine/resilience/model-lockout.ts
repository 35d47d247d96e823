import type { LockoutScope, LockoutView } from '../../../shared/contract';
import type { LockoutSettings } from '../settings/resilience-defaults';
import type { LockoutEntry } from '../store/state-records';

/** Which key a status locks: quota/permission → family, not-found → model, anything else → exact. */
export function scopeForStatus(status: number): LockoutScope {
  if (status === 429 || status === 403 || status === 402) return 'family';
  if (status === 404) return 'model';
  return 'exact';
}

export function lockoutKey(
  provider: string,
  connection: string,
  scope: LockoutScope,
  subject: string,
): string {
  // RESILIENCE.md §3: family `provider:connection:family`, model `provider:connection:model`
  // (one key when a model is its own family), exact `provider:connection:exact:model`.
  if (scope === 'exact') return `${provider}:${connection}:exact:${subject}`;
  return `${provider}:${connection}:${subject}`;
}

export function lockoutDuration(failureCount: number, s: LockoutSettings): number {
  if (!s.useExponentialBackoff) return s.baseCooldownMs;
  return Math.min(
    s.maxCooldownMs,
    s.baseCooldownMs * 2 ** Math.min(failureCount - 1, s.maxBackoffSteps),
  );
}

/** The model's quota family: the first declared family with a matching pattern (`*` wildcard). */
export function familyOf(model: string, families: Record<string, string[]>): string {
  for (const [family, patterns] of Object.entries(families)) {
    for (const p of patterns) {
      const re = new RegExp(
        `^${p
          .split('*')
          .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
      if (re.test(model)) return family;
    }
  }
  return model;
}

export interface LockoutFailure {
  provider: string;
  connection: string;
  model: string;
  status: number;
  reason: string;
  /** A rule's explicit scope wins over the status-derived one. */
  scope?: LockoutScope;
  /** A rule's declared duration (capped by maxCooldownMs); otherwise the backoff. */
  cooldownMs?: number;
  families: Record<string, string[]>;
}

/**
 * Model lockouts keyed by provider/connection/(family|model|exact). Entries outlive their
 * expiry so a model that fails again soon is locked longer; successes decay them by halving.
 */
export class ModelLockouts {
  private readonly entries = new Map<string, LockoutEntry>();

  constructor(restored: LockoutEntry[] = []) {
    for (const e of restored) this.entries.set(e.key, { ...e });
  }

  private keysFor(
    provider: string,
    connection: string,
    model: string,
    families: Record<string, string[]>,
  ): string[] {
    // A model that is its own family has one key for both scopes: decay it once.
    return [
      ...new Set([
        lockoutKey(provider, connection, 'family', familyOf(model, families)),
        lockoutKey(provider, connection, 'model', model),
        lockoutKey(provider, connection, 'exact', model),
      ]),
    ];
  }

  /** The active lockout covering this triple with the latest expiry, if any. */
  check(
    provider: string,
    connection: string,
    model: string,
    families: Record<string, string[]>,
    now: number,
  ): LockoutEntry | null {
    // The common case on the request path: nothing is locked, so no keys need building.
    if (this.entries.size === 0) return null;
    let worst: LockoutEntry | null = null;
    for (const key of this.keysFor(provider, connection, model, families)) {
      const e = this.entries.get(key);
      if (e && e.expiresAt > now && (!worst || e.expiresAt > worst.expiresAt)) worst = e;
    }
    return worst;
  }

  /**
   * Records a failure. Returns the entry written, or null when lockout does not apply (off,
   * or a status outside `errorCodes` without an explicit rule).
   */
  recordFailure(f: LockoutFailure, settings: LockoutSettings, now: number): LockoutEntry | null {
    const explicit = f.scope !== undefined || f.cooldownMs !== undefined;
    if (!settings.enabled && !explicit) return null;
    if (!explicit && !settings.errorCodes.includes(f.status)) return null;
    const scope = f.scope ?? scopeForStatus(f.status);
    const subject = scope === 'family' ? familyOf(f.model, f.families) : f.model;
    const key = lockoutKey(f.provider, f.connection, scope, subject);
    const previous = this.entries.get(key);
    const failureCount = (previous?.failureCount ?? 0) + 1;
    const duration =
      f.cooldownMs !== undefined
        ? Math.min(f.cooldownMs, settings.maxCooldownMs)
        : lockoutDuration(failureCount, settings);
    const entry: LockoutEntry = {
      key,
      provider: f.provider,
      connection: f.connection,
      model: f.model,
      subject,
      scope,
      reason: f.reason,
      failureCount,
      // A failure during a lockout extends it, never shortens it.
      expiresAt: Math.max(now + duration, previous?.expiresAt ?? 0),
    };
    this.entries.set(key, entry);
    return entry;
  }

  /** Halves the failure counts covering this triple; entries reaching 0 are removed. */
  recordSuccess(
    provider: string,
    connection: string,
    model: string,
    families: Record<string, string[]>,
  ): LockoutEntry[] {
    const removed: LockoutEntry[] = [];
    if (this.entries.size === 0) return removed;
    for (const key of this.keysFor(provider, connection, model, families)) {
      const e = this.entries.get(key);
      if (!e) continue;
      const failureCount = Math.floor(e.failureCount / 2);
      if (failureCount <= 0) {
        this.entries.delete(key);
        removed.push(e);
      } else {
        this.entries.set(key, { ...e, failureCount });
      }
    }
    return removed;
  }

  /** Re-enables a model: every entry of that provider/connection naming it, in any scope. */
  clear(provider: string, connection: string, model: string): LockoutEntry[] {
    const removed: LockoutEntry[] = [];
    for (const [key, e] of this.entries) {
      if (
        e.provider === provider &&
        e.connection === connection &&
        (e.model === model || e.subject === model)
      ) {
        this.entries.delete(key);
        removed.push(e);
      }
    }
    return removed;
  }

  clearAll(filter: (e: LockoutEntry) => boolean = () => true): LockoutEntry[] {
    const removed = [...this.entries.values()].filter(filter);
    for (const e of removed) this.entries.delete(e.key);
    return removed;
  }

  active(now: number): LockoutEntry[] {
    return [...this.entries.values()].filter((e) => e.expiresAt > now);
  }

  all(): LockoutEntry[] {
    return [...this.entries.values()];
  }
}

export function lockoutView(e: LockoutEntry): LockoutView {
  return {
    provider: e.provider,
    connection: e.connection,
    model: e.scope === 'family' ? e.subject : e.model,
    scope: e.scope,
    reason: e.reason,
    failureCount: e.failureCount,
    expiresAt: e.expiresAt,
  };
}
