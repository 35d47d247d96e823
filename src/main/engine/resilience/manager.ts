import type {
  AuthClass,
  BreakerView,
  ConnectionStatus,
  EngineEvent,
  LockoutView,
} from '../../../shared/contract';
import type { Catalog, CatalogConnection, CatalogProvider } from '../config/catalog';
import type { Logger } from '../logger';
import type { Candidate } from '../routing/resolve';
import type {
  BreakerProfile,
  LockoutSettings,
  ProviderCooldownProfile,
} from '../settings/resilience-defaults';
import type { Settings } from '../settings/settings';
import type { ResilienceChanges, ResilienceRepo } from '../store';
import type { BreakerSnapshot, ConnectionHealth, LockoutEntry } from '../store/state-records';
import { CircuitBreaker } from './breaker';
import {
  applyFailure,
  applySuccess,
  type ConnectionFailure,
  cleared,
  current,
  HEALTHY,
  isHealthy,
  isTerminal,
} from './connection-cooldown';
import { DeferredFlush } from './deferred-flush';
import { type Classification, egressFamilyOf } from './error-rules';
import { lockoutView, ModelLockouts } from './model-lockout';
import { ProviderCooldown } from './provider-cooldown';

/** Why routing skipped a candidate (RESILIENCE.md §8). `retryAfterMs` null: needs an operator. */
export interface Exclusion {
  reason: 'circuit_open' | 'provider_cooldown' | 'unavailable' | 'model_lockout';
  retryAfterMs: number | null;
  detail: string;
  /** For a cooling connection: the error type that cooled it. */
  errorType?: string | null;
}

export interface ManagerDeps {
  settings: Settings;
  catalog(): Catalog;
  repo: ResilienceRepo;
  emit(event: EngineEvent): void;
  log: Logger;
  now(): number;
  /** Last egress IP a connection used within `sinceMs` (from the request log). */
  recentEgress(connection: string, sinceMs: number): string | null;
  /** How often dirty state is written to SQLite (never on the request path). */
  flushIntervalMs?: number;
}

const EGRESS_LOOKBACK_MS = 24 * 3_600_000;
const EGRESS_CACHE_MS = 5 * 60_000;

function derivedSettings(settings: Settings) {
  const breaker = (a: AuthClass) =>
    settings.derived(
      (s): BreakerProfile => ({
        degradationThreshold: s.number(`breaker.${a}.degradationThreshold`),
        failureThreshold: s.number(`breaker.${a}.failureThreshold`),
        resetTimeoutMs: s.number(`breaker.${a}.resetTimeoutMs`),
      }),
    );
  const providerCooldown = (p: 'api_key' | 'oauth') =>
    settings.derived(
      (s): ProviderCooldownProfile => ({
        providerFailureThreshold: s.number(`providerCooldown.${p}.providerFailureThreshold`),
        providerFailureWindowMs: s.number(`providerCooldown.${p}.providerFailureWindowMs`),
        providerCooldownMs: s.number(`providerCooldown.${p}.providerCooldownMs`),
      }),
    );
  return {
    breaker: { api_key: breaker('api_key'), oauth: breaker('oauth'), local: breaker('local') },
    providerCooldown: { api_key: providerCooldown('api_key'), oauth: providerCooldown('oauth') },
    providerCooldownEnabled: settings.derived((s) => s.boolean('providerCooldown.enabled')),
    lockout: settings.derived(
      (s): LockoutSettings => ({
        enabled: s.boolean('modelLockout.enabled'),
        errorCodes: s.get('modelLockout.errorCodes') as number[],
        baseCooldownMs: s.number('modelLockout.baseCooldownMs'),
        maxCooldownMs: s.number('modelLockout.maxCooldownMs'),
        maxBackoffSteps: s.number('modelLockout.maxBackoffSteps'),
        useExponentialBackoff: s.boolean('modelLockout.useExponentialBackoff'),
      }),
    ),
  };
}

function excerpt(text: string, max = 200): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/**
 * Owns the state of every resilience mechanism: breakers per provider, windowed provider
 * cooldowns, connection health and model lockouts. The mechanisms themselves are pure modules;
 * this class routes outcomes to them, emits one event per state change, and persists changes
 * in batches off the request path.
 */
export class ResilienceManager {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly providerCooldowns = new Map<string, ProviderCooldown>();
  private readonly health: Map<string, ConnectionHealth>;
  private readonly lockouts: ModelLockouts;
  private readonly restoredBreakers: Map<string, BreakerSnapshot>;
  private readonly dirty: ResilienceChanges = {
    breakers: new Map(),
    health: new Map(),
    lockouts: new Map(),
  };
  private readonly egressCache = new Map<string, { ip: string | null; at: number }>();
  private readonly flusher: DeferredFlush;
  /** Settings read for every candidate of every request, computed once per settings change. */
  private readonly derived: ReturnType<typeof derivedSettings>;

  constructor(private readonly deps: ManagerDeps) {
    this.flusher = new DeferredFlush(deps.flushIntervalMs ?? 250, () => this.flush());
    this.derived = derivedSettings(deps.settings);
    this.restoredBreakers = deps.repo.loadBreakers();
    this.health = deps.repo.loadHealth();
    this.lockouts = new ModelLockouts(deps.repo.loadLockouts());
  }

  // ---------------------------------------------------------------- settings

  lockoutSettings(): Readonly<LockoutSettings> {
    return this.derived.lockout();
  }

  private cooldownOptions(conn: CatalogConnection, authClass: AuthClass) {
    const s = this.deps.settings;
    return {
      baseMs: s.number(authClass === 'oauth' ? 'cooldown.oauth.baseMs' : 'cooldown.api_key.baseMs'),
      capMs: s.number('cooldown.capMs'),
      disableCooling: conn.options?.disableCooling === true,
    };
  }

  // ---------------------------------------------------------------- state access

  private breaker(provider: CatalogProvider): CircuitBreaker {
    let b = this.breakers.get(provider.id);
    const profile = this.derived.breaker[provider.authClass]();
    if (!b) {
      b = new CircuitBreaker(
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
    } else {
      b.setProfile(profile);
    }
    return b;
  }

  private markBreaker(provider: string): void {
    const b = this.breakers.get(provider);
    if (b) this.dirty.breakers.set(provider, b.toJSON());
    this.scheduleFlush();
  }

  private providerCooldown(provider: string): ProviderCooldown {
    let p = this.providerCooldowns.get(provider);
    if (!p) {
      p = new ProviderCooldown();
      this.providerCooldowns.set(provider, p);
    }
    return p;
  }

  /** Health with expired cooldowns promoted; a promotion is a state change and is announced. */
  private healthOf(conn: CatalogConnection, now: number): ConnectionHealth {
    const stored = this.health.get(conn.id) ?? HEALTHY;
    const h = current(stored, now);
    if (h !== stored) {
      this.setHealth(conn.id, h);
      this.deps.emit({
        type: 'connection.recovered',
        at: now,
        provider: conn.provider,
        connection: conn.id,
        status: 'active',
        until: null,
        cause: 'cooldown ended',
      });
    }
    return h;
  }

  private setHealth(connection: string, h: ConnectionHealth): void {
    if (isHealthy(h)) {
      if (!this.health.has(connection)) return;
      this.health.delete(connection);
      this.dirty.health.set(connection, null);
    } else {
      this.health.set(connection, h);
      this.dirty.health.set(connection, h);
    }
    this.scheduleFlush();
  }

  private families(provider: CatalogProvider): Record<string, string[]> {
    return provider.options?.quotaFamilies ?? {};
  }

  // ---------------------------------------------------------------- routing decisions

  /**
   * Why this candidate may not be dispatched now, or null. Reads only: it takes no probe.
   * Order: the widest scope first, so diagnostics name the real cause.
   */
  exclusion(c: Candidate, now: number): Exclusion | null {
    const provider = c.target.provider;
    const breaker = this.breaker(provider);
    const state = breaker.status(now);
    if (state === 'OPEN' || (state === 'HALF_OPEN' && !breaker.wouldAdmit(now))) {
      return {
        reason: 'circuit_open',
        retryAfterMs: breaker.retryAfterMs(now),
        detail: `circuit of ${provider.id} is ${state === 'OPEN' ? 'open' : 'half-open with a probe in flight'}`,
      };
    }
    if (this.derived.providerCooldownEnabled()) {
      const pc = this.providerCooldowns.get(provider.id);
      if (pc?.cooling(now)) {
        return {
          reason: 'provider_cooldown',
          retryAfterMs: pc.retryAfterMs(now),
          detail: `${provider.id} is cooling down`,
        };
      }
    }
    const h = this.healthOf(c.connection, now);
    if (isTerminal(h.status)) {
      return {
        reason: 'unavailable',
        retryAfterMs: null,
        detail: `connection ${c.connection.id} is ${h.status}`,
      };
    }
    if (h.status === 'unavailable' && h.rateLimitedUntil !== null) {
      return {
        reason: 'unavailable',
        retryAfterMs: h.rateLimitedUntil - now,
        detail: `connection ${c.connection.id} is cooling down (${h.lastErrorType ?? 'error'})`,
        errorType: h.lastErrorType,
      };
    }
    const lock = this.lockouts.check(
      provider.id,
      c.connection.id,
      c.target.model,
      this.families(provider),
      now,
    );
    if (lock) {
      return {
        reason: 'model_lockout',
        retryAfterMs: lock.expiresAt - now,
        detail: `${lock.scope === 'family' ? `quota family ${lock.subject}` : c.target.model} is locked on ${c.connection.id} (${lock.reason})`,
      };
    }
    return null;
  }

  /** Admits a dispatch through the provider's breaker (takes the HALF_OPEN probe if due). */
  admit(
    c: Candidate,
    now: number,
    deadline: number,
  ): { ok: true; probe: boolean; ticket: number | null } | { ok: false; exclusion: Exclusion } {
    const breaker = this.breaker(c.target.provider);
    const a = breaker.admit(now, deadline);
    if (a.allowed)
      return { ok: true, probe: a.probe, ticket: a.probe ? breaker.probeTicket() : null };
    return {
      ok: false,
      exclusion: {
        reason: 'circuit_open',
        retryAfterMs: a.retryAfterMs,
        detail: `circuit of ${c.target.provider.id} is not admitting`,
      },
    };
  }

  /** Gives an unused probe back (client abort, or an outcome that says nothing about the provider). */
  release(c: Candidate, ticket: number | null): void {
    if (ticket !== null) this.breaker(c.target.provider).releaseProbe(ticket);
  }

  // ---------------------------------------------------------------- outcomes

  onSuccess(c: Candidate, probe: boolean, now: number): void {
    const provider = c.target.provider;
    this.breaker(provider).recordSuccess(now, probe);
    this.providerCooldowns.get(provider.id)?.recordSuccess();
    const before = this.health.get(c.connection.id);
    if (before) {
      const after = applySuccess(before, now);
      if (after !== before) {
        this.setHealth(c.connection.id, after);
        if (before.status !== 'active') {
          this.emitConnection(
            'connection.recovered',
            c.connection,
            'active',
            null,
            'request succeeded',
            now,
          );
        }
      }
    }
    for (const e of this.lockouts.recordSuccess(
      provider.id,
      c.connection.id,
      c.target.model,
      this.families(provider),
    )) {
      this.dirty.lockouts.set(e.key, null);
      this.deps.emit({
        type: 'lockout.cleared',
        at: now,
        lockout: lockoutView(e),
        cause: 'decayed to zero by successes',
      });
    }
    this.markLockoutsDirty(provider.id, c.connection.id);
  }

  /** A provider-level network failure (refused, reset, DNS, timeout). */
  onNetworkFailure(c: Candidate, probe: boolean, now: number, message: string): void {
    this.providerFailure(c.target.provider, probe, now, `network: ${message}`);
  }

  private providerFailure(
    provider: CatalogProvider,
    probe: boolean,
    now: number,
    cause: string,
  ): void {
    this.breaker(provider).recordFailure(now, probe, cause);
    if (this.derived.providerCooldownEnabled()) {
      const until = this.providerCooldown(provider.id).recordFailure(
        now,
        this.derived.providerCooldown[provider.authClass === 'oauth' ? 'oauth' : 'api_key'](),
      );
      if (until !== null)
        this.deps.emit({ type: 'provider.cooldown', at: now, provider: provider.id, until, cause });
      if (until !== null)
        this.deps.log.warn(
          `provider ${provider.id} cooling down until ${new Date(until).toISOString()} (${cause})`,
        );
    }
  }

  /** An upstream error response, already classified. */
  onUpstreamError(
    c: Candidate,
    probe: boolean,
    cls: Classification,
    info: { status: number; message: string; requestStartedAt: number; egressIp: string | null },
    now: number,
  ): void {
    const provider = c.target.provider;
    const cause = `HTTP ${info.status}${cls.ruleId ? ` (rule ${cls.ruleId})` : ''}: ${excerpt(info.message)}`;
    if (cls.breakerFailure) this.providerFailure(provider, probe, now, cause);
    else if (probe) {
      // The provider answered: that is what a probe asks. Account-level errors do not count.
      this.breaker(provider).recordSuccess(now, true);
    }

    const lockSettings = this.lockoutSettings();
    const disableCooling = c.connection.options?.disableCooling === true;
    // A rule's own scope or cooldown is the operator's (or a built-in rule's) consent; every
    // other lockout needs lockout switched on, and a status in errorCodes unless a pattern
    // named the scope (e.g. a 400 saying the model is not accessible).
    const lockApplies =
      cls.lockout !== null &&
      ((cls.ruleId !== null &&
        (cls.lockout.scope !== undefined || cls.lockout.cooldownMs !== undefined)) ||
        (lockSettings.enabled &&
          (cls.lockout.scope !== undefined || lockSettings.errorCodes.includes(cls.status))));
    const egressBucket = cls.egressBucket && egressFamilyOf(provider.id) !== null;
    let lock = false;
    let cool: ConnectionFailure | null = cls.connection;
    if (cls.connection?.kind === 'cooldown') {
      if (cls.prefer === 'lockout' && lockApplies && !egressBucket) {
        lock = true;
        cool = null;
      } else if (disableCooling && cls.lockout) {
        // Cooling is off for this connection: lock only the model instead.
        lock = true;
        cool = null;
      }
    } else if (cls.lockout && lockApplies) {
      lock = true;
    }

    if (lock && cls.lockout) {
      const forced = disableCooling && cls.prefer === 'connection';
      const entry = this.lockouts.recordFailure(
        {
          provider: provider.id,
          connection: c.connection.id,
          model: c.target.model,
          status: cls.status,
          reason: cls.reason,
          ...(cls.lockout.scope
            ? { scope: cls.lockout.scope }
            : forced
              ? { scope: 'model' as const }
              : {}),
          ...(cls.lockout.cooldownMs !== undefined ? { cooldownMs: cls.lockout.cooldownMs } : {}),
          families: this.families(provider),
        },
        lockSettings,
        now,
      );
      if (entry) {
        this.dirty.lockouts.set(entry.key, entry);
        this.scheduleFlush();
        this.deps.emit({ type: 'lockout.added', at: now, lockout: lockoutView(entry), cause });
      }
    }

    if (cool) {
      this.applyConnectionFailure(
        c.connection,
        provider,
        cool,
        cls.reason,
        info.requestStartedAt,
        cause,
        info.status,
        now,
      );
    }
    if (egressBucket) {
      this.coolEgressSiblings(c, provider, cls, info, cause, now);
    }
  }

  private applyConnectionFailure(
    conn: CatalogConnection,
    provider: CatalogProvider,
    failure: ConnectionFailure,
    reason: string,
    requestStartedAt: number,
    cause: string,
    status: number,
    now: number,
  ): void {
    const before = this.health.get(conn.id) ?? HEALTHY;
    const { health, change } = applyFailure(
      before,
      { failure, reason, errorCode: String(status), message: cause, requestStartedAt },
      this.cooldownOptions(conn, provider.authClass),
      now,
    );
    this.setHealth(conn.id, health);
    if (change.kind === 'cooldown') {
      this.emitConnection('connection.cooldown', conn, 'unavailable', change.until, cause, now);
      this.deps.log.warn(
        `connection ${conn.id} cooling for ${Math.ceil((change.until - now) / 1000)} s: ${cause}`,
      );
    } else if (change.kind === 'terminal') {
      this.emitConnection('connection.terminal', conn, change.status, null, cause, now);
      this.deps.log.error(
        `connection ${conn.id} is now ${change.status}: ${cause}; an operator must reset it`,
      );
    }
  }

  /**
   * Egress-IP bucketed lock: a free tier limited by IP fails for every connection leaving
   * through the same address, so those siblings cool too instead of each failing in turn.
   */
  private coolEgressSiblings(
    c: Candidate,
    provider: CatalogProvider,
    cls: Classification,
    info: { requestStartedAt: number; egressIp: string | null; status: number },
    cause: string,
    now: number,
  ): void {
    if (c.connection.options?.disableCooling) return;
    const family = egressFamilyOf(provider.id);
    const ip = info.egressIp ?? this.egressOf(c.connection.id, now);
    if (!family || !ip) return;
    const catalog = this.deps.catalog();
    for (const p of catalog.providers.values()) {
      if (egressFamilyOf(p.id) !== family) continue;
      for (const sibling of p.connections) {
        if (sibling.id === c.connection.id || sibling.options?.disableCooling) continue;
        if (this.egressOf(sibling.id, now) !== ip) continue;
        const failure: ConnectionFailure =
          cls.connection?.kind === 'cooldown' ? cls.connection : { kind: 'cooldown' };
        this.applyConnectionFailure(
          sibling,
          p,
          failure,
          cls.reason,
          info.requestStartedAt,
          `${cause} (same egress IP as ${c.connection.id})`,
          info.status,
          now,
        );
      }
    }
  }

  private egressOf(connection: string, now: number): string | null {
    const cached = this.egressCache.get(connection);
    if (cached && now - cached.at < EGRESS_CACHE_MS) return cached.ip;
    const ip = this.deps.recentEgress(connection, now - EGRESS_LOOKBACK_MS);
    this.egressCache.set(connection, { ip, at: now });
    return ip;
  }

  /** Tells the egress cache what a connection just used (from the live request). */
  noteEgress(connection: string, ip: string, now: number): void {
    this.egressCache.set(connection, { ip, at: now });
  }

  private emitConnection(
    type: 'connection.cooldown' | 'connection.terminal' | 'connection.recovered',
    conn: CatalogConnection,
    status: ConnectionStatus,
    until: number | null,
    cause: string,
    now: number,
  ): void {
    this.deps.emit({
      type,
      at: now,
      provider: conn.provider,
      connection: conn.id,
      status,
      until,
      cause,
    });
  }

  private markLockoutsDirty(provider: string, connection: string): void {
    // A success halves counts without removing entries; those rows change too.
    let any = false;
    for (const e of this.lockouts.all()) {
      if (e.provider !== provider || e.connection !== connection) continue;
      this.dirty.lockouts.set(e.key, e);
      any = true;
    }
    if (any) this.scheduleFlush();
  }

  // ---------------------------------------------------------------- operator actions

  resetBreakers(provider: string | undefined, now: number): string[] {
    const catalog = this.deps.catalog();
    const ids = provider ? [provider] : [...catalog.providers.keys()];
    for (const id of ids) {
      const p = catalog.providers.get(id);
      if (!p) continue;
      this.breaker(p).reset(now, 'reset by operator');
      this.markBreaker(id);
      this.providerCooldowns.get(id)?.clear();
    }
    return ids;
  }

  clearConnection(connection: CatalogConnection, now: number): void {
    const before = this.health.get(connection.id);
    this.setHealth(connection.id, cleared());
    if (before && !isHealthy(before)) {
      this.emitConnection(
        'connection.recovered',
        connection,
        'active',
        null,
        'cleared by operator',
        now,
      );
    }
  }

  /** Drops all state of a connection that was deleted (the rows go with it by cascade). */
  forgetConnection(connection: string): void {
    this.health.delete(connection);
    this.dirty.health.delete(connection);
    for (const e of this.lockouts.clearAll((x) => x.connection === connection))
      this.dirty.lockouts.delete(e.key);
    this.egressCache.delete(connection);
  }

  /** Drops all state of a provider that was deleted. */
  forgetProvider(provider: string, connections: readonly string[]): void {
    this.breakers.delete(provider);
    this.restoredBreakers.delete(provider);
    this.dirty.breakers.delete(provider);
    this.providerCooldowns.delete(provider);
    for (const c of connections) this.forgetConnection(c);
  }

  clearLockout(provider: string, connection: string, model: string, now: number): LockoutView[] {
    const removed = this.lockouts.clear(provider, connection, model);
    for (const e of removed) {
      this.dirty.lockouts.set(e.key, null);
      this.deps.emit({
        type: 'lockout.cleared',
        at: now,
        lockout: lockoutView(e),
        cause: 're-enabled by operator',
      });
    }
    this.scheduleFlush();
    return removed.map(lockoutView);
  }

  // ---------------------------------------------------------------- views

  breakerViews(now: number): BreakerView[] {
    return [...this.deps.catalog().providers.values()].map((p) => {
      const b = this.breaker(p);
      return {
        provider: p.id,
        state: b.status(now),
        failureCount: b.failureCount(now),
        retryAfterMs: b.retryAfterMs(now),
        history: b.toJSON().history,
        cooldownUntil: this.providerCooldowns.get(p.id)?.cooling(now)
          ? now + this.providerCooldowns.get(p.id)!.retryAfterMs(now)
          : null,
      };
    });
  }

  /** Health of a connection for the snapshot, promoted to now. */
  connectionHealth(conn: CatalogConnection, now: number): ConnectionHealth {
    return this.healthOf(conn, now);
  }

  lockoutViews(now: number): LockoutView[] {
    return this.lockouts.active(now).map(lockoutView);
  }

  lockoutEntries(now: number): LockoutEntry[] {
    return this.lockouts.active(now);
  }

  // ---------------------------------------------------------------- persistence

  private scheduleFlush(): void {
    this.flusher.schedule();
  }

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

  close(): void {
    this.flusher.flushNow();
  }
}
