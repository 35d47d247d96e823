// The state of every resilience mechanism and its way to SQLite: breakers per provider,
// windowed provider cooldowns, connection health and model lockouts. Reads promote what has
// expired and announce it (lazy recovery, RESILIENCE.md "General rules"); changes reach the
// store in batches, never on the request path.

import type { EngineEvent } from '../../../../shared/contract';
import type { CatalogConnection, CatalogProvider } from '../../config/catalog';
import type { Logger } from '../../logger';
import type { StateBackend } from '../../state/backend';
import type { ResilienceChanges, ResilienceRepo } from '../../store';
import type { BreakerSnapshot, ConnectionHealth, LockoutEntry } from '../../store/state-records';
import { DeferredFlush } from '../deferred-flush';
import type { DerivedSettings } from '../derived-settings';
import { CircuitBreaker } from './breaker';
import { current, HEALTHY, isHealthy } from './connection-cooldown';
import { lockoutView, ModelLockouts } from './model-lockout';
import { ProviderCooldown } from './provider-cooldown';

export interface ResilienceStateDeps {
  repo: ResilienceRepo;
  settings: DerivedSettings;
  emit(event: EngineEvent): void;
  log: Logger;
  now(): number;
  /** How often dirty state is written to SQLite. */
  flushIntervalMs: number;
  /** Where else the state lives (team mode); changes of this instance are sent there. */
  shared: StateBackend;
}

/** A shared connection record outlives its cooldown by this much (its backoff level is kept). */
const HEALTH_GRACE_MS = 3_600_000;

export class ResilienceState {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly providerCooldowns = new Map<string, ProviderCooldown>();
  private readonly health: Map<string, ConnectionHealth>;
  readonly lockouts: ModelLockouts;
  private readonly restoredBreakers: Map<string, BreakerSnapshot>;
  private readonly dirty: ResilienceChanges = {
    breakers: new Map(),
    health: new Map(),
    lockouts: new Map(),
  };
  private readonly flusher: DeferredFlush;
  /** True while a peer's change is applied: it is not sent back. */
  private adopting = false;

  constructor(private readonly deps: ResilienceStateDeps) {
    this.flusher = new DeferredFlush(deps.flushIntervalMs, () => this.flush());
    this.restoredBreakers = deps.repo.loadBreakers();
    this.health = deps.repo.loadHealth();
    this.lockouts = new ModelLockouts(deps.repo.loadLockouts(), {
      now: deps.now(),
      // The row stays (its count still lengthens the next lock); only the lock has ended.
      onLapsed: (e, at) =>
        deps.emit({ type: 'lockout.cleared', at, lockout: lockoutView(e), cause: 'expired' }),
    });
  }

  // ---------------------------------------------------------------- provider scope

  /** The provider's breaker, created on first use with the profile of its credential kind. */
  breaker(provider: CatalogProvider): CircuitBreaker {
    const profile = this.deps.settings.breaker[provider.authClass]();
    const existing = this.breakers.get(provider.id);
    if (existing) {
      existing.setProfile(profile);
      return existing;
    }
    const b = new CircuitBreaker(
      provider.id,
      profile,
      (t) => {
        this.markBreaker(provider.id);
        this.deps.emit({
          type: 'breaker.transition',
          at: t.at,
          provider: provider.id,
          from: t.from,
          to: t.to,
          cause: t.cause,
        });
        const level = t.to === 'OPEN' ? 'warn' : 'info';
        this.deps.log[level](`breaker ${provider.id}: ${t.from} → ${t.to} (${t.cause})`);
      },
      this.restoredBreakers.get(provider.id),
    );
    this.breakers.set(provider.id, b);
    return b;
  }

  markBreaker(provider: string): void {
    const b = this.breakers.get(provider);
    if (b) {
      const snapshot = b.toJSON();
      this.dirty.breakers.set(provider, snapshot);
      if (!this.adopting)
        this.deps.shared.put({ kind: 'breaker', id: provider, value: snapshot }, null);
    }
    this.flusher.schedule();
  }

  /** Applies a change another instance made, without sending it back. */
  adopt(apply: () => void): void {
    this.adopting = true;
    try {
      apply();
    } finally {
      this.adopting = false;
    }
  }

  /** The provider's windowed cooldown, created on first use. */
  providerCooldown(provider: string): ProviderCooldown {
    let p = this.providerCooldowns.get(provider);
    if (!p) {
      p = new ProviderCooldown((at) => {
        this.deps.emit({ type: 'provider.recovered', at, provider, cause: 'cooldown ended' });
        this.deps.log.info(`provider ${provider}: cooldown ended`);
      });
      this.providerCooldowns.set(provider, p);
    }
    return p;
  }

  /** The cooldown only if the provider ever had one (most never do). */
  existingProviderCooldown(provider: string): ProviderCooldown | undefined {
    return this.providerCooldowns.get(provider);
  }

  // ---------------------------------------------------------------- connection scope

  /** As stored: an expired cooldown is not yet promoted. */
  storedHealth(connection: string): ConnectionHealth {
    return this.health.get(connection) ?? HEALTHY;
  }

  hasHealth(connection: string): boolean {
    return this.health.has(connection);
  }

  /** Health with an expired cooldown promoted; a promotion is a state change and is announced. */
  healthOf(conn: CatalogConnection, now: number): ConnectionHealth {
    const stored = this.storedHealth(conn.id);
    const h = current(stored, now);
    if (h !== stored) {
      this.setHealth(conn.id, h);
      this.recovered(conn, 'cooldown ended', now);
    }
    return h;
  }

  /** Announces that a connection is active again. */
  recovered(conn: CatalogConnection, cause: string, now: number): void {
    this.deps.emit({
      type: 'connection.recovered',
      at: now,
      provider: conn.provider,
      connection: conn.id,
      status: 'active',
      until: null,
      cause,
    });
  }

  setHealth(connection: string, h: ConnectionHealth): void {
    if (isHealthy(h)) {
      if (!this.health.has(connection)) return;
      this.health.delete(connection);
      this.dirty.health.set(connection, null);
    } else {
      this.health.set(connection, h);
      this.dirty.health.set(connection, h);
    }
    this.flusher.schedule();
    if (!this.adopting) this.share(connection, h);
  }

  private share(connection: string, h: ConnectionHealth): void {
    const change = { kind: 'health' as const, id: connection, value: isHealthy(h) ? null : h };
    const until = h.status === 'unavailable' ? h.rateLimitedUntil : null;
    if (until === null) this.deps.shared.put(change, null);
    else this.deps.shared.lengthen(change, until, until - this.deps.now() + HEALTH_GRACE_MS);
  }

  // ---------------------------------------------------------------- model scope

  /** Stores a lockout entry, or deletes the row of a removed one. */
  markLockout(key: string, entry: LockoutEntry | null): void {
    this.dirty.lockouts.set(key, entry);
    this.flusher.schedule();
    if (this.adopting) return;
    const ttl = entry ? entry.expiresAt - this.deps.now() : null;
    if (ttl === null || ttl > 0)
      this.deps.shared.put({ kind: 'lockout', id: key, value: entry }, ttl);
  }

  /** Stores a lockout entry here; the rows of what the cap dropped go, here only. */
  putLockout(entry: LockoutEntry): void {
    for (const e of this.lockouts.put(entry)) this.dirty.lockouts.set(e.key, null);
    this.markLockout(entry.key, entry);
  }

  /** A success halves counts without removing entries: those rows change too. */
  markLockoutsOf(provider: string, connection: string): void {
    // The request path's case: nothing is locked anywhere.
    if (this.lockouts.size === 0) return;
    let any = false;
    for (const e of this.lockouts.all()) {
      if (e.provider !== provider || e.connection !== connection) continue;
      this.dirty.lockouts.set(e.key, e);
      any = true;
    }
    if (any) this.flusher.schedule();
  }

  // ---------------------------------------------------------------- forgetting

  /** Drops all state of a connection that was deleted (the rows go with it by cascade). */
  forgetConnection(connection: string): void {
    this.health.delete(connection);
    this.dirty.health.delete(connection);
    for (const e of this.lockouts.clearAll((x) => x.connection === connection))
      this.dirty.lockouts.delete(e.key);
  }

  /** Drops all state of a provider that was deleted (not its connections: see the manager). */
  forgetProvider(provider: string): void {
    this.breakers.delete(provider);
    this.restoredBreakers.delete(provider);
    this.dirty.breakers.delete(provider);
    this.providerCooldowns.delete(provider);
  }

  // ---------------------------------------------------------------- persistence

  flush(): void {
    const d = this.dirty;
    if (d.breakers.size + d.health.size + d.lockouts.size === 0) return;
    const batch: ResilienceChanges = {
      breakers: new Map(d.breakers),
      health: new Map(d.health),
      lockouts: new Map(d.lockouts),
    };
    d.breakers.clear();
    d.health.clear();
    d.lockouts.clear();
    try {
      this.deps.repo.save(batch, this.deps.now());
    } catch (err) {
      this.deps.log.error(`resilience state not saved: ${String(err)}`);
    }
  }

  /**
   * Writes every pending change now: an operator action is committed before it is acknowledged
   * (observed transitions wait for the batch, at most `flushIntervalMs`).
   */
  commit(): void {
    this.flusher.flushNow();
  }

  close(): void {
    this.flusher.flushNow();
  }
}
