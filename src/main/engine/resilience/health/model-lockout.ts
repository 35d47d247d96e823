import type { LockoutScope, LockoutView } from '../../../../shared/contract';
import type { LockoutSettings } from '../../settings/resilience-defaults';
import type { LockoutEntry } from '../../store/state-records';

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
 * What a lockout key holds: a lock until its expiry, or a lapsed one whose count is kept so a
 * model that fails again soon is locked longer, until successes decay it away.
 */
export type LockoutState =
  | { name: 'LOCKED'; entry: LockoutEntry }
  | { name: 'LAPSED'; entry: LockoutEntry };

function stateAt(entry: LockoutEntry, now: number): LockoutState {
  return { name: entry.expiresAt > now ? 'LOCKED' : 'LAPSED', entry };
}

/**
 * The entry a failure writes, or null when lockout does not apply (off, or a status outside
 * `errorCodes` without an explicit rule). `previous` reads the entry stored under a key.
 */
export function lockoutAfterFailure(
  f: LockoutFailure,
  settings: LockoutSettings,
  now: number,
  previous: (key: string) => LockoutEntry | undefined,
): LockoutEntry | null {
  const explicit = f.scope !== undefined || f.cooldownMs !== undefined;
  if (!settings.enabled && !explicit) return null;
  if (!explicit && !settings.errorCodes.includes(f.status)) return null;
  const scope = f.scope ?? scopeForStatus(f.status);
  const subject = scope === 'family' ? familyOf(f.model, f.families) : f.model;
  const key = lockoutKey(f.provider, f.connection, scope, subject);
  const before = previous(key);
  const failureCount = (before?.failureCount ?? 0) + 1;
  const duration =
    f.cooldownMs !== undefined
      ? Math.min(f.cooldownMs, settings.maxCooldownMs)
      : lockoutDuration(failureCount, settings);
  return {
    key,
    provider: f.provider,
    connection: f.connection,
    model: f.model,
    subject,
    scope,
    reason: f.reason,
    failureCount,
    // A failure during a lockout extends it, never shortens it.
    expiresAt: Math.max(now + duration, before?.expiresAt ?? 0),
    lockedAt: now,
  };
}

/**
 * Entries kept at most. A provider routes any model name (`provider/<anything>`), so a client
 * that invents one per request and gets a 404 each time adds an entry per request; lapsed entries
 * are kept for the backoff, and were kept until a success of that very model came.
 */
export const MAX_LOCKOUT_ENTRIES = 2_000;
/** What one eviction leaves: room for a tenth of the cap before the next. */
const AFTER_EVICTION = Math.floor(MAX_LOCKOUT_ENTRIES * 0.9);
const NONE: readonly LockoutEntry[] = Object.freeze([]);
/** A provider's `quotaFamilies` when it names none. */
export const NO_FAMILIES: Readonly<Record<string, string[]>> = Object.freeze({});

export interface LockoutRestore {
  /** When the entries are restored: those already past their expiry come back lapsed. */
  now: number;
  /** Told once per lock that a read finds past its expiry. */
  onLapsed(entry: LockoutEntry, at: number): void;
}

/**
 * Model lockouts keyed by provider/connection/(family|model|exact). Entries outlive their
 * expiry so a model that fails again soon is locked longer; successes decay them by halving.
 * Reads move a lock past its expiry to LAPSED and report it once, as the breaker reports its
 * transitions; whether an entry is in force is always its expiry against the time of the read.
 */
export class ModelLockouts {
  private readonly states = new Map<string, LockoutState>();
  private readonly onLapsed: LockoutRestore['onLapsed'];

  constructor(restored: LockoutEntry[] = [], options?: LockoutRestore) {
    this.onLapsed = options?.onLapsed ?? (() => {});
    for (const e of restored) {
      const entry = { ...e };
      this.states.set(e.key, options ? stateAt(entry, options.now) : { name: 'LOCKED', entry });
    }
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

  /** The entry under `key` as of `now`, lapsing a lock that has run out. */
  private read(key: string, now: number): LockoutEntry | undefined {
    const s = this.states.get(key);
    if (s?.name === 'LOCKED' && s.entry.expiresAt <= now) {
      this.states.set(key, { name: 'LAPSED', entry: s.entry });
      this.onLapsed(s.entry, now);
    }
    return s?.entry;
  }

  /** The stored entry under `key`, locked or lapsed. */
  get(key: string): LockoutEntry | undefined {
    return this.states.get(key)?.entry;
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
    if (this.states.size === 0) return null;
    let worst: LockoutEntry | null = null;
    for (const key of this.keysFor(provider, connection, model, families)) {
      const e = this.read(key, now);
      if (e && e.expiresAt > now && (!worst || e.expiresAt > worst.expiresAt)) worst = e;
    }
    return worst;
  }

  get size(): number {
    return this.states.size;
  }

  /**
   * Stores an entry `lockoutAfterFailure` decided. Over the cap, the entries that end (or ended)
   * first are dropped, lapsed ones before any lock: returned, so their rows go too.
   */
  put(entry: LockoutEntry): readonly LockoutEntry[] {
    this.states.set(entry.key, { name: 'LOCKED', entry });
    if (this.states.size <= MAX_LOCKOUT_ENTRIES) return NONE;
    const byEnd = [...this.states.values()].sort((a, b) => a.entry.expiresAt - b.entry.expiresAt);
    const dropped: LockoutEntry[] = [];
    for (const s of byEnd) {
      if (this.states.size <= AFTER_EVICTION) break;
      if (s.entry.key === entry.key) continue;
      this.states.delete(s.entry.key);
      dropped.push(s.entry);
    }
    return dropped;
  }

  /** Drops the entry under `key`; returns it, if there was one. */
  remove(key: string): LockoutEntry | undefined {
    const s = this.states.get(key);
    this.states.delete(key);
    return s?.entry;
  }

  /** Records a failure. Returns the entry written, or null when lockout does not apply. */
  recordFailure(f: LockoutFailure, settings: LockoutSettings, now: number): LockoutEntry | null {
    const entry = lockoutAfterFailure(f, settings, now, (key) => this.get(key));
    if (entry) this.put(entry);
    return entry;
  }

  /** Halves the failure counts covering this triple; entries reaching 0 are removed. */
  recordSuccess(
    provider: string,
    connection: string,
    model: string,
    families: Record<string, string[]>,
  ): readonly LockoutEntry[] {
    if (this.states.size === 0) return NONE;
    const removed: LockoutEntry[] = [];
    for (const key of this.keysFor(provider, connection, model, families)) {
      const s = this.states.get(key);
      if (!s) continue;
      const failureCount = Math.floor(s.entry.failureCount / 2);
      if (failureCount <= 0) {
        this.states.delete(key);
        removed.push(s.entry);
      } else {
        this.states.set(key, { name: s.name, entry: { ...s.entry, failureCount } });
      }
    }
    return removed;
  }

  /** Re-enables a model: every entry of that provider/connection naming it, in any scope. */
  clear(provider: string, connection: string, model: string): LockoutEntry[] {
    return this.clearAll(
      (e) =>
        e.provider === provider &&
        e.connection === connection &&
        (e.model === model || e.subject === model),
    );
  }

  clearAll(filter: (e: LockoutEntry) => boolean = () => true): LockoutEntry[] {
    const removed = this.all().filter(filter);
    for (const e of removed) this.states.delete(e.key);
    return removed;
  }

  active(now: number): LockoutEntry[] {
    return [...this.states.keys()].flatMap((key) => {
      const e = this.read(key, now);
      return e && e.expiresAt > now ? [e] : [];
    });
  }

  all(): LockoutEntry[] {
    return [...this.states.values()].map((s) => s.entry);
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
