import type { BreakerView, EngineEvent, LockoutView } from '../../../shared/contract';
import type { Catalog, CatalogConnection, CatalogProvider } from '../config/catalog';
import type { Logger } from '../logger';
import type { Candidate } from '../routing/resolve';
import type { Settings } from '../settings/settings';
import { LOCAL_STATE, type StateBackend } from '../state/backend';
import type { ResilienceRepo } from '../store';
import type { ConnectionHealth } from '../store/state-records';
import { type DerivedSettings, deriveSettings } from './derived-settings';
import type { Classification } from './health';
import {
  adoptChange,
  applySuccess,
  cleared,
  coolsEgressSiblings,
  countsNetworkFailures,
  decideFailure,
  EgressMap,
  type Exclusion,
  exclusionOf,
  type FailureOutcome,
  type FailureState,
  HOST_NETWORK_UP,
  type HostNetwork,
  type HostNetworkEvent,
  isHealthy,
  lockoutView,
  NO_FAMILIES,
  NOT_COOLING,
  nextHostNetwork,
  ReprobeGate,
  type ReprobeTicket,
  ResilienceState,
  successCause,
} from './health';

export type { Exclusion } from './health';

export interface ResilienceDeps {
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
  /** Where else the state lives (team mode); local by default. */
  shared?: StateBackend;
}

/**
 * The probes an attempt holds: the breaker's half-open probe (this breaker's permit, and the
 * team's when shared), and the re-probes of a long cooldown or lockout.
 */
export interface ProbeTicket {
  /** The attempt is the breaker's half-open probe. */
  probe: boolean;
  local: number | null;
  shared: string | null;
  reprobe: ReprobeTicket | null;
}

export type Admitted =
  | { ok: true; probe: boolean; ticket: ProbeTicket | null }
  | { ok: false; exclusion: Exclusion };

/** An ordinary admission (no probe, nothing to give back): one answer for all of them. */
const ADMITTED: Admitted = Object.freeze({ ok: true, probe: false, ticket: null });

/**
 * The request path's and the operator's one door to the resilience mechanisms. Decisions are
 * made elsewhere (the pure mechanisms and the failure policy); this class reads the state they
 * need, applies what they decide, and announces each change with one event.
 */
export class ResilienceManager {
  private readonly settings: DerivedSettings;
  private readonly state: ResilienceState;
  private readonly egress: EgressMap;
  private host: HostNetwork = HOST_NETWORK_UP;
  private readonly shared: StateBackend;
  private readonly reprobes: ReprobeGate;

  constructor(private readonly deps: ResilienceDeps) {
    this.settings = deriveSettings(deps.settings);
    this.shared = deps.shared ?? LOCAL_STATE;
    this.shared.onChange((c) => adoptChange(this.state, c, deps.catalog(), deps.emit, deps.now()));
    this.state = new ResilienceState({
      shared: this.shared,
      repo: deps.repo,
      settings: this.settings,
      emit: deps.emit,
      log: deps.log,
      now: deps.now,
      flushIntervalMs: deps.flushIntervalMs ?? 250,
    });
    this.egress = new EgressMap(deps.recentEgress);
    this.reprobes = new ReprobeGate({
      state: this.state,
      shared: this.shared,
      intervalMs: this.settings.reprobeAfterMs,
      emit: deps.emit,
      log: deps.log,
    });
  }

  // ---------------------------------------------------------------- routing decisions

  /** Why this candidate may not be dispatched now, or null. Takes no probe. */
  exclusion(c: Candidate, now: number): Exclusion | null {
    return exclusionOf(
      this.state,
      this.settings.providerCooldownEnabled(),
      this.reprobes.view,
      c,
      now,
    );
  }

  /**
   * Admits a dispatch through the provider's breaker (takes the HALF_OPEN probe if due), and
   * through a long cooldown or lockout due for a re-probe (takes its permit). In team mode a
   * probe also needs the team's one permit, the only case that waits for Redis.
   */
  admit(c: Candidate, now: number, deadline: number): Admitted | Promise<Admitted> {
    // The exclusion let it through as a re-probe; another request may have taken it since.
    const taken = this.reprobes.take(c, now, deadline);
    if (taken !== null && 'reason' in taken) return { ok: false, exclusion: taken };
    const reprobe = taken;
    const provider = c.target.provider;
    const breaker = this.state.breaker(provider);
    const a = breaker.admit(now, deadline);
    if (!a.allowed) {
      if (reprobe) this.reprobes.release(reprobe);
      return notAdmitting(provider.id, a.retryAfterMs, 'is not admitting');
    }
    if (!a.probe && reprobe === null) return ADMITTED;
    const ticket: ProbeTicket = {
      probe: a.probe,
      local: a.probe ? breaker.probeTicket() : null,
      shared: null,
      reprobe,
    };
    if (this.shared.kind === 'local') return { ok: true, probe: a.probe, ticket };
    return this.teamPermits(c, ticket, now, deadline);
  }

  /** Team mode: the team's permits for the probes this attempt is (one per scope at a time). */
  private async teamPermits(
    c: Candidate,
    ticket: ProbeTicket,
    now: number,
    deadline: number,
  ): Promise<Admitted> {
    const provider = c.target.provider;
    if (ticket.probe) {
      ticket.shared = await this.shared.probe(provider.id, deadline - now);
      if (ticket.shared === null) {
        this.release(c, ticket);
        return notAdmitting(
          provider.id,
          this.state.breaker(provider).retryAfterMs(now),
          'has its probe out on another instance',
        );
      }
    }
    const excluded =
      ticket.reprobe && (await this.reprobes.takeShared(ticket.reprobe, now, deadline));
    if (excluded) {
      this.release(c, ticket);
      return { ok: false, exclusion: excluded };
    }
    return { ok: true, probe: ticket.probe, ticket };
  }

  /**
   * Gives probes back: the team's permits always (the next probe may go at once), the
   * re-probe's always (its outcome, if any, is in the connection's state), this breaker's
   * unless the outcome was recorded (`spent`).
   */
  release(c: Candidate, ticket: ProbeTicket | null, spent = false): void {
    if (ticket === null) return;
    if (ticket.probe) {
      if (!spent) this.state.breaker(c.target.provider).releaseProbe(ticket.local);
      if (ticket.shared !== null) this.shared.releaseProbe(c.target.provider.id, ticket.shared);
    }
    if (ticket.reprobe) this.reprobes.release(ticket.reprobe);
  }

  // ---------------------------------------------------------------- outcomes

  onSuccess(c: Candidate, probe: boolean, now: number): void {
    const provider = c.target.provider;
    const connection = c.connection.id;
    this.state.breaker(provider).recordSuccess(now, probe);
    this.state.existingProviderCooldown(provider.id)?.recordSuccess();
    if (this.state.hasHealth(connection)) {
      const before = this.state.storedHealth(connection);
      const after = applySuccess(before, now);
      if (after !== before) {
        this.state.setHealth(connection, after);
        if (before.status !== 'active')
          this.state.recovered(c.connection, successCause(before, now), now);
      }
    }
    this.reprobes.succeeded(c, now);
    const families = provider.options?.quotaFamilies ?? NO_FAMILIES;
    for (const e of this.state.lockouts.recordSuccess(
      provider.id,
      connection,
      c.target.model,
      families,
    )) {
      this.state.markLockout(e.key, null);
      this.deps.emit({
        type: 'lockout.cleared',
        at: now,
        lockout: lockoutView(e),
        cause: 'decayed to zero by successes',
      });
    }
    this.state.markLockoutsOf(provider.id, connection);
  }

  /** A provider-level network failure (refused, reset, DNS, timeout). */
  onNetworkFailure(c: Candidate, probe: boolean, now: number, message: string): void {
    // The host's own outage (asleep, offline, just back): a probe's permit runs out at its deadline.
    if (!countsNetworkFailures(this.host, now)) return;
    this.applyFailure({ kind: 'network', candidate: c, probe, message }, null, now);
    this.reprobes.failed(c, now);
  }

  /** An upstream error response, already classified. */
  onUpstreamError(
    c: Candidate,
    probe: boolean,
    cls: Classification,
    info: { status: number; message: string; requestStartedAt: number; egressIp: string | null },
    now: number,
  ): void {
    this.applyFailure(
      {
        kind: 'upstream',
        candidate: c,
        probe,
        classification: cls,
        status: info.status,
        message: info.message,
        requestStartedAt: info.requestStartedAt,
      },
      info.egressIp,
      now,
    );
    this.reprobes.failed(c, now);
  }

  /** The machine slept, woke, went offline or came back (from the desktop host). */
  noteHostNetwork(event: HostNetworkEvent, now: number): void {
    this.host = nextHostNetwork(this.host, event, now);
  }

  /** Tells the egress cache what a connection just used (from the live request). */
  noteEgress(connection: string, ip: string, now: number): void {
    this.egress.note(connection, ip, now);
  }

  private applyFailure(outcome: FailureOutcome, egressIp: string | null, now: number): void {
    const c = outcome.candidate;
    const provider = c.target.provider;
    const state: FailureState = {
      providerCooldown: this.state.existingProviderCooldown(provider.id)?.read(now) ?? NOT_COOLING,
      health: (connection) => this.state.storedHealth(connection),
      lockout: (key) => this.state.lockouts.get(key),
      egressSiblings:
        outcome.kind === 'upstream' && coolsEgressSiblings(c, outcome.classification)
          ? this.egress.siblings(c, egressIp, this.deps.catalog(), now)
          : [],
    };
    const d = decideFailure(outcome, state, this.settings.failure(provider.authClass), now);
    if (d.breaker?.kind === 'failure')
      this.state.breaker(provider).recordFailure(now, outcome.probe, d.breaker.cause);
    else if (d.breaker?.kind === 'probe_answered')
      this.state.breaker(provider).recordSuccess(now, true);
    if (d.providerCooldown) this.state.providerCooldown(provider.id).write(d.providerCooldown);
    if (d.lockout) this.state.putLockout(d.lockout);
    for (const h of d.health) this.state.setHealth(h.connection, h.health);
    for (const e of d.events) {
      this.deps.emit(e);
      this.logFailureEvent(e, now);
    }
  }

  private logFailureEvent(e: EngineEvent, now: number): void {
    const log = this.deps.log;
    if (e.type === 'provider.cooldown') {
      log.warn(
        `provider ${e.provider} cooling down until ${new Date(e.until).toISOString()} (${e.cause})`,
      );
    } else if (e.type === 'connection.cooldown' && e.until !== null) {
      log.warn(
        `connection ${e.connection} cooling for ${Math.ceil((e.until - now) / 1000)} s: ${e.cause}`,
      );
    } else if (e.type === 'connection.terminal') {
      log.error(
        `connection ${e.connection} is now ${e.status}: ${e.cause}; an operator must reset it`,
      );
    }
  }

  // ---------------------------------------------------------------- operator actions

  resetBreakers(provider: string | undefined, now: number): string[] {
    const catalog = this.deps.catalog();
    const ids = provider ? [provider] : [...catalog.providers.keys()];
    for (const id of ids) {
      const p = catalog.providers.get(id);
      if (!p) continue;
      this.state.breaker(p).reset(now, 'reset by operator');
      this.state.markBreaker(id);
      this.state.existingProviderCooldown(id)?.clear();
    }
    this.state.commit();
    return ids;
  }

  clearConnection(connection: CatalogConnection, now: number): void {
    const before = this.state.storedHealth(connection.id);
    this.state.setHealth(connection.id, cleared());
    if (!isHealthy(before)) this.state.recovered(connection, 'cleared by operator', now);
    this.state.commit();
  }

  /** Drops all state of a connection that was deleted (the rows go with it by cascade). */
  forgetConnection(connection: string): void {
    this.state.forgetConnection(connection);
    this.egress.forget(connection);
  }

  /** Drops all state of a provider that was deleted. */
  forgetProvider(provider: string, connections: readonly string[]): void {
    this.state.forgetProvider(provider);
    for (const c of connections) this.forgetConnection(c);
  }

  clearLockout(provider: string, connection: string, model: string, now: number): LockoutView[] {
    const removed = this.state.lockouts.clear(provider, connection, model);
    for (const e of removed) {
      this.state.markLockout(e.key, null);
      this.deps.emit({
        type: 'lockout.cleared',
        at: now,
        lockout: lockoutView(e),
        cause: 're-enabled by operator',
      });
    }
    this.state.commit();
    return removed.map(lockoutView);
  }

  // ---------------------------------------------------------------- views

  breakerViews(now: number): BreakerView[] {
    return [...this.deps.catalog().providers.values()].map((p) => {
      const b = this.state.breaker(p);
      return {
        provider: p.id,
        state: b.status(now),
        failureCount: b.failureCount(now),
        retryAfterMs: b.retryAfterMs(now),
        history: b.toJSON().history,
        cooldownUntil: this.state.existingProviderCooldown(p.id)?.until(now) ?? null,
      };
    });
  }

  /** Health of a connection for the snapshot, promoted to now. */
  connectionHealth(conn: CatalogConnection, now: number): ConnectionHealth {
    return this.state.healthOf(conn, now);
  }

  /** Whether a connection may be granted a lease naming no model: active, enabled, circuit not open. */
  leasable(conn: CatalogConnection, provider: CatalogProvider | undefined, now: number): boolean {
    return (
      this.state.healthOf(conn, now).status === 'active' &&
      provider?.enabled !== false &&
      (provider === undefined || this.state.breaker(provider).status(now) !== 'OPEN')
    );
  }

  lockoutViews(now: number): LockoutView[] {
    return this.state.lockouts.active(now).map(lockoutView);
  }

  close(): void {
    this.state.close();
  }
}

function notAdmitting(provider: string, retryAfterMs: number, why: string): Admitted {
  return {
    ok: false,
    exclusion: { reason: 'circuit_open', retryAfterMs, detail: `circuit of ${provider} ${why}` },
  };
}
