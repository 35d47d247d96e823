// Exclusive session leases (RESILIENCE.md §10): the stateful part. Decisions come from the pure
// modules (./leases, ./lease-fence, ./lease-planning), rows and events from the ledger
// (./lease-ledger); this class runs the endpoint's actions and answers the request path.

import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { EngineEvent, GatewayApiKeyConfig, LeaseView } from '../../../../shared/contract';
import type { Catalog, CatalogConnection } from '../../config/catalog';
import type { Logger } from '../../logger';
import type { Candidate } from '../../routing/resolve';
import type { LeaseRepo } from '../../store/leases';
import type { Lease } from '../../store/state-records';
import type { GatewayError } from '../../wire/client-errors';
import {
  canHoldLeases,
  type FenceResult,
  fenceHeaders,
  type ManagedLease,
  scopeMessage,
} from './fence';
import {
  chooseConnection,
  clampTtl,
  current,
  fence,
  hashOwner,
  leaseView,
  nextGeneration,
  ownerTokenFrom,
  replyBody,
} from './lease';
import {
  acquiredEvent,
  capacityRefusal,
  endedEvent,
  FENCE_STATUS,
  LeaseLedger,
  LeaseRefusal,
} from './ledger';
import { acquireOptions, type ExclusionOf, type LeasePlan, planLeases } from './planning';
import { adoptLease } from './team';

export {
  canHoldLeases,
  LEASE_GENERATION_HEADER,
  LEASE_OWNER_HEADER,
  type ManagedLease,
} from './fence';
export type { LeasePlan, LeaseSkip } from './planning';

/** A gateway API key as configured (`gateway.apiKeys`). */
export type GatewayKey = GatewayApiKeyConfig;

/** Ended leases are kept this long (each owner's newest row is kept for its generation). */
const ENDED_RETENTION_MS = 7 * 24 * 3_600_000;

export interface LeaseServiceDeps {
  repo: LeaseRepo;
  emit(event: EngineEvent): void;
  log: Logger;
  /** The live gateway key of this name (config file or store), or null once it is gone. */
  keyNamed(name: string): GatewayApiKeyConfig | null;
  catalog(): Catalog;
  exclusion: ExclusionOf;
  /** Whether a connection is healthy enough to be granted when no model is named. */
  connectionEligible(connection: CatalogConnection, now: number): boolean;
  /** 32 random bytes per owner token; tests may pin it. */
  random?(): Buffer;
}

/** What `POST /api/v1/session-leases` answers. */
export interface LeaseReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface AcquireChoice {
  previous: Lease | null;
  connection: string;
}

const NONE_HELD: ReadonlyMap<string, number> = new Map();

export type LeaseAction = 'acquire' | 'renew' | 'release' | 'status';

/**
 * A well-formed request of the endpoint (see proxy/session-leases.ts): every action but
 * acquire names its owner; renew and release name the generation too.
 */
export interface LeaseRequest {
  action: LeaseAction;
  ttlMs?: number;
  owner?: string;
  generation?: number;
  model?: string;
}

/** The 403 a key without the lease scope gets. */
export function scopeRefusal(key: GatewayApiKeyConfig | null): LeaseReply {
  return refusalReply(new LeaseRefusal(403, 'lease_scope_required', scopeMessage(key)));
}

export function refusalReply(err: LeaseRefusal): LeaseReply {
  return {
    status: err.status,
    body: { error: { code: err.code, message: err.message, ...err.extra } },
    headers: err.headers,
  };
}

/**
 * Owns every lease transition: acquire, renew, release, operator release, lazy expiry, a
 * managed request's move to another connection, and the reconciliation with the configured
 * keys at start. Each transition emits exactly one `lease.acquired` or `lease.ended`.
 */
export class LeaseService {
  protected readonly ledger: LeaseLedger;

  constructor(protected readonly deps: LeaseServiceDeps) {
    this.ledger = new LeaseLedger(deps.repo, deps.emit);
  }

  // ---------------------------------------------------------------- start

  /**
   * Ends ACTIVE leases the configuration no longer allows: their key is gone or lost the scope,
   * their connection left the key's allowedConnections, or the connection was removed. Runs at
   * start, after every catalog reload and after a gateway key changes (created, edited, revoked
   * or rotated through the admin API). Also prunes old ended rows.
   */
  reconcile(now: number): void {
    this.ledger.write(now, (events) => {
      for (const l of this.deps.repo.active()) {
        const key = this.deps.keyNamed(l.keyName);
        const reason = !canHoldLeases(key)
          ? ('key_revoked' as const)
          : !key.allowedConnections!.includes(l.connection)
            ? ('connection_not_allowed' as const)
            : !this.deps.catalog().connections.has(l.connection)
              ? ('connection_removed' as const)
              : null;
        if (!reason) continue;
        const ended = this.ledger.transition(l, { type: 'invalidate', reason }, now);
        events.push(endedEvent(ended, now));
        this.deps.log.info(`lease on ${l.connection} invalidated (${reason})`);
      }
      this.deps.repo.prune(now - ENDED_RETENTION_MS);
    });
  }

  // ---------------------------------------------------------------- views

  views(now: number): LeaseView[] {
    this.ledger.expire(now);
    return this.ledger.active().map(leaseView);
  }

  /** Operator release (dashboard, admin API). Null when the connection holds no active lease. */
  releaseConnection(connection: string, now: number): LeaseView | null {
    return this.ledger.write(now, (events) => {
      const l = this.deps.repo.active().find((x) => x.connection === connection);
      if (!l) return null;
      const ended = this.ledger.transition(
        l,
        { type: 'release', reason: 'released_by_operator' },
        now,
      );
      events.push(endedEvent(ended, now));
      this.deps.log.info(
        `lease on ${connection} (generation ${l.generation}) released by the operator`,
      );
      return leaseView(ended);
    });
  }

  // ---------------------------------------------------------------- the endpoint

  /** An action of `POST /api/v1/session-leases` for an identified gateway key. */
  handle(key: GatewayApiKeyConfig | null, req: LeaseRequest, now: number): LeaseReply {
    if (!canHoldLeases(key)) return scopeRefusal(key);
    try {
      switch (req.action) {
        case 'acquire':
          return this.acquire(key, req, now);
        case 'renew':
        case 'release':
          return this.renewOrRelease(key, req, now);
        case 'status':
          return this.status(key, req, now);
      }
    } catch (err) {
      if (!(err instanceof LeaseRefusal)) throw err;
      return refusalReply(err);
    }
  }

  private acquire(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    const token = this.ownerToken(req);
    const ownerHash = hashOwner(token);
    const ttl = clampTtl(req.ttlMs);
    const lease = this.ledger.write(now, (events) => {
      const choice = this.choose(key, req, ownerHash, now, NONE_HELD);
      const generation = nextGeneration(this.deps.repo.maxGeneration(ownerHash));
      return this.grant(key, choice, ownerHash, generation, ttl, events, now);
    });
    return this.granted(key, lease, token);
  }

  protected ownerToken(req: LeaseRequest): string {
    return req.owner ?? ownerTokenFrom(this.deps.random?.() ?? randomBytes(32));
  }

  /**
   * The connection an acquire gets (refusals are thrown). `held`: connections the team holds
   * that this instance's mirror may not know of yet, by the end of their claim.
   */
  protected choose(
    key: GatewayApiKeyConfig,
    req: LeaseRequest,
    ownerHash: string,
    now: number,
    held: ReadonlyMap<string, number>,
  ): AcquireChoice {
    const repo = this.deps.repo;
    let previous: Lease | null = null;
    if (req.owner) {
      const latest = repo.latestForOwner(ownerHash, key.name);
      if (!latest) {
        throw new LeaseRefusal(
          404,
          'LEASE_UNKNOWN_OWNER',
          'this owner token is not known for this API key; acquire without "owner" to get a new one',
        );
      }
      previous = current(latest, now).status.name === 'ACTIVE' ? latest : null;
    }
    const active = repo.active();
    const heldUntil = (connection: string): number | null => {
      const h = active.find((l) => l.connection === connection);
      return h && h.id !== previous?.id ? h.expiresAt : (held.get(connection) ?? null);
    };
    const options = acquireOptions(this.deps.catalog(), key, req.model, this.deps, now);
    if (options === 'unknown_model') {
      throw new LeaseRefusal(
        404,
        'model_not_found',
        `model "${req.model}" is not known to Breakwater`,
      );
    }
    const slots = options.map((o) => ({ ...o, heldUntil: heldUntil(o.connection) }));
    const grant = chooseConnection(slots, previous?.connection ?? null, now);
    if (grant.kind === 'none') {
      throw new LeaseRefusal(
        404,
        'no_leasable_connection',
        `none of the connections allowed for API key "${key.name}" (${key.allowedConnections!.join(', ')}) exists, is enabled${req.model ? ` and serves "${req.model}"` : ''}`,
      );
    }
    if (grant.kind === 'wait') throw capacityRefusal(grant.retryAfterMs);
    return { previous, connection: grant.connection };
  }

  /** Inside a write: ends the owner's previous lease and stores the new one. */
  protected grant(
    key: GatewayApiKeyConfig,
    choice: AcquireChoice,
    ownerHash: string,
    generation: number,
    ttl: number,
    events: EngineEvent[],
    now: number,
  ): Lease {
    const repo = this.deps.repo;
    // Read again: in team mode a write of this owner may have landed while Redis answered.
    const previous = choice.previous && repo.byId(choice.previous.id);
    if (previous && current(previous, now).status.name === 'ACTIVE') {
      const ended = this.ledger.transition(
        previous,
        { type: 'invalidate', reason: 'superseded' },
        now,
      );
      events.push(endedEvent(ended, now));
    }
    const created = repo.insert({
      id: 0,
      ownerHash,
      keyName: key.name,
      connection: choice.connection,
      generation,
      acquiredAt: now,
      expiresAt: now + ttl,
      status: { name: 'ACTIVE' },
    });
    events.push(
      acquiredEvent(
        created,
        now,
        `acquired by API key "${key.name}" for ${Math.round(ttl / 1000)} s (generation ${created.generation})`,
      ),
    );
    return created;
  }

  protected granted(key: GatewayApiKeyConfig, lease: Lease, token: string): LeaseReply {
    this.deps.log.info(
      `lease on ${lease.connection} acquired by API key "${key.name}" (generation ${lease.generation})`,
    );
    return { status: 200, body: replyBody(lease, token) };
  }

  /** The endpoint as the server calls it (team mode: see lease-team-service.ts). */
  handleShared(
    key: GatewayApiKeyConfig | null,
    req: LeaseRequest,
    now: number,
  ): Promise<LeaseReply> {
    return Promise.resolve(this.handle(key, req, now));
  }

  /** The owner's newest lease under this key, fenced by the presented generation. */
  protected fenced(
    key: GatewayApiKeyConfig,
    owner: string,
    generation: number,
    now: number,
  ): Lease {
    const latest = this.deps.repo.latestForOwner(hashOwner(owner), key.name);
    const d = fence(latest, generation, now);
    if (d.kind === 'refuse') throw new LeaseRefusal(FENCE_STATUS[d.code], d.code, d.message);
    return d.lease;
  }

  protected renewOrRelease(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    const lease = this.ledger.write(now, (events) => {
      const l = this.fenced(key, req.owner!, req.generation!, now);
      if (req.action === 'renew') {
        const ttl = clampTtl(req.ttlMs);
        const renewed = this.ledger.transition(l, { type: 'renew', ttlMs: ttl }, now);
        events.push(acquiredEvent(renewed, now, `renewed for ${Math.round(ttl / 1000)} s`));
        return renewed;
      }
      const released = this.ledger.transition(l, { type: 'release', reason: 'released' }, now);
      events.push(endedEvent(released, now));
      return released;
    });
    if (req.action === 'release') {
      this.deps.log.info(`lease on ${lease.connection} (generation ${lease.generation}) released`);
    }
    return { status: 200, body: replyBody(lease) };
  }

  private status(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    this.ledger.expire(now);
    const latest = this.deps.repo.latestForOwner(hashOwner(req.owner!), key.name);
    if (!latest) {
      throw new LeaseRefusal(
        404,
        'LEASE_UNKNOWN_OWNER',
        'this owner token is not known for this API key',
      );
    }
    return { status: 200, body: replyBody(current(latest, now)) };
  }

  // ---------------------------------------------------------------- the request path

  /**
   * Reads the lease headers of a proxy request. No headers: an unmanaged request (`managed`
   * null). Headers that do not pass the fence are refused before anything is dispatched.
   */
  fence(key: GatewayApiKeyConfig | null, headers: IncomingHttpHeaders, now: number): FenceResult {
    return fenceHeaders(key, headers, this.latestForOwner, now);
  }

  /**
   * The owner's newest lease for the fence, due leases expired first (made once, not a closure
   * per request).
   */
  private readonly latestForOwner = (ownerHash: string, keyName: string, now: number) => {
    this.ledger.expire(now);
    return this.deps.repo.latestForOwner(ownerHash, keyName);
  };

  /**
   * Filters and orders a request's candidates by the leases in force (see `planLeases`);
   * a 429 `LEASE_CAPACITY_UNAVAILABLE` when only other clients' leases are in the way.
   */
  plan(
    managed: ManagedLease | null,
    candidates: readonly Candidate[],
    now: number,
  ): LeasePlan | GatewayError {
    this.ledger.expire(now);
    return planLeases(managed, candidates, this.ledger.active(), this.deps.exclusion, now);
  }

  /**
   * Whether a candidate added late (the emergency fallback) respects the leases: never another
   * client's leased connection; for a managed request, only its key's allowed connections.
   */
  allows(managed: ManagedLease | null, candidate: Candidate, now: number): boolean {
    const id = candidate.connection.id;
    if (managed && id !== managed.connection && !managed.allowed.has(id)) return false;
    this.ledger.expire(now);
    const h = this.ledger.active().find((l) => l.connection === id);
    return !h || h.id === managed?.leaseId;
  }

  /**
   * Called once a managed request was served: when another connection served it (its own was
   * not eligible), the lease moves there with the same generation, unless someone took that
   * connection meanwhile.
   */
  served(managed: ManagedLease | null, connection: string, now: number): void {
    if (!managed || connection === managed.connection) return;
    this.ledger.write(now, (events) => {
      const l = this.deps.repo.byId(managed.leaseId);
      if (!l || current(l, now).status.name !== 'ACTIVE' || l.connection !== managed.connection)
        return;
      if (this.deps.repo.active().some((x) => x.connection === connection)) {
        this.deps.log.warn(
          `lease g${l.generation}: cannot move to ${connection}, another lease holds it`,
        );
        return;
      }
      const moved = this.ledger.transition(l, { type: 'move', connection }, now);
      events.push(
        endedEvent(
          { ...l, status: { name: 'RELEASED', endedAt: now, reason: 'released' } },
          now,
          `moved to ${connection} (same generation)`,
        ),
      );
      events.push(acquiredEvent(moved, now, `moved from ${l.connection}, which was not eligible`));
      this.deps.log.info(`lease g${l.generation} moved from ${l.connection} to ${connection}`);
    });
  }

  /** Team mode: a lease another instance changed (see lease-team.ts). */
  adopt(remote: Lease, now: number): void {
    this.ledger.write(now, (events) =>
      adoptLease(this.deps.repo, remote, events, this.deps.log, now),
    );
  }
}
