// Exclusive session leases (RESILIENCE.md §10): the stateful part. Decisions come from the pure
// module (./leases), rows from the store (store/leases.ts); this class glues them together,
// keeps the ACTIVE leases cached for the request path, and emits one event per state change.

import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { EngineEvent, GatewayApiKeyConfig, LeaseView } from '../../../shared/contract';
import type { Catalog, CatalogConnection } from '../config/catalog';
import type { Logger } from '../logger';
import { type Candidate, expandCandidates, resolveModel } from '../routing/resolve';
import type { LeaseRepo } from '../store/leases';
import type { Lease } from '../store/state-records';
import type { GatewayError } from '../wire/client-errors';
import type { Exclusion } from './exclusion';
import {
  apply,
  chooseConnection,
  clampTtl,
  current,
  decideCapacity,
  fence,
  hashOwner,
  LEASE_SCOPE,
  type LeaseCommand,
  type LeaseErrorCode,
  leaseView,
  nextGeneration,
  OWNER_TOKEN_PATTERN,
  ownerTokenFrom,
  planManaged,
  retryAfterSeconds,
  type Slot,
} from './leases';

/** A gateway API key as configured (`gateway.apiKeys`). */
export type GatewayKey = GatewayApiKeyConfig;

export const LEASE_OWNER_HEADER = 'x-breakwater-lease-owner';
export const LEASE_GENERATION_HEADER = 'x-breakwater-lease-generation';
/** Ended leases are kept this long (each owner's newest row is kept for its generation). */
const ENDED_RETENTION_MS = 7 * 24 * 3_600_000;

export interface LeaseServiceDeps {
  repo: LeaseRepo;
  emit(event: EngineEvent): void;
  log: Logger;
  keys: readonly GatewayApiKeyConfig[];
  catalog(): Catalog;
  /** Resilience verdict for one candidate (breaker, cooldown, lockout); null = eligible. */
  exclusion(candidate: Candidate, now: number): Exclusion | null;
  /** Whether a connection is healthy enough to be granted when no model is named. */
  connectionEligible(connection: CatalogConnection, now: number): boolean;
  /** 32 random bytes per owner token; tests may pin it. */
  random?(): Buffer;
}

/** A request that passed the fence: it owns `connection` with `generation`. */
export interface ManagedLease {
  leaseId: number;
  keyName: string;
  generation: number;
  connection: string;
  allowed: ReadonlySet<string>;
}

export interface LeaseSkip {
  target: string;
  reason: string;
  retryAfterMs: number | null;
  detail: string;
}

/** Candidates the pipeline may try, in order, plus what leases took away (for diagnostics). */
export interface LeasePlan {
  candidates: readonly Candidate[];
  skipped: LeaseSkip[];
  /** A routing step for the decision header, e.g. `lease g2 on oa-1`. */
  note: string | null;
}

/** What `POST /api/v1/session-leases` answers. */
export interface LeaseReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Action = 'acquire' | 'renew' | 'release' | 'status';
const ACTIONS: readonly Action[] = ['acquire', 'renew', 'release', 'status'];

interface LeaseRequest {
  action: Action;
  ttlMs?: number;
  owner?: string;
  generation?: number;
  model?: string;
}

class ReplyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function bad(code: string, message: string): ReplyError {
  return new ReplyError(400, code, message);
}

const FENCE_STATUS: Record<LeaseErrorCode, number> = {
  LEASE_UNKNOWN_OWNER: 404,
  LEASE_GENERATION_STALE: 409,
  LEASE_GENERATION_UNKNOWN: 409,
  LEASE_NOT_ACTIVE: 409,
};

export function canHoldLeases(key: GatewayApiKeyConfig | null): boolean {
  return (
    key !== null &&
    (key.scopes ?? []).includes(LEASE_SCOPE) &&
    (key.allowedConnections ?? []).length > 0
  );
}

function scopeMessage(key: GatewayApiKeyConfig | null): string {
  if (!key) {
    return 'exclusive leases need a gateway API key (gateway.apiKeys in the config) with scope "lease:exclusive" and a non-empty allowedConnections';
  }
  return `API key "${key.name}" may not hold exclusive leases: give it the scope "lease:exclusive" and a non-empty allowedConnections in gateway.apiKeys`;
}

function parseRequest(body: unknown): LeaseRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('invalid_body', 'the body must be a JSON object such as {"action": "acquire"}');
  }
  const o = body as Record<string, unknown>;
  const known = new Set(['action', 'ttlMs', 'owner', 'generation', 'model']);
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw bad(
      'invalid_body',
      `unknown field(s) ${unknown.join(', ')}; allowed: ${[...known].join(', ')}`,
    );
  }
  if (typeof o.action !== 'string' || !ACTIONS.includes(o.action as Action)) {
    throw bad('invalid_action', `action must be one of ${ACTIONS.join(', ')}`);
  }
  const out: LeaseRequest = { action: o.action as Action };
  if (o.ttlMs !== undefined) {
    if (typeof o.ttlMs !== 'number' || !Number.isFinite(o.ttlMs) || o.ttlMs <= 0) {
      throw bad(
        'invalid_ttl',
        'ttlMs must be a positive number of milliseconds (clamped to 1000–1800000)',
      );
    }
    out.ttlMs = o.ttlMs;
  }
  if (o.owner !== undefined) {
    if (typeof o.owner !== 'string' || !OWNER_TOKEN_PATTERN.test(o.owner)) {
      throw bad('invalid_owner', 'owner must be the bwl_… token an acquire returned');
    }
    out.owner = o.owner;
  }
  if (o.generation !== undefined) {
    if (
      typeof o.generation !== 'number' ||
      !Number.isSafeInteger(o.generation) ||
      o.generation < 1
    ) {
      throw bad('invalid_generation', 'generation must be a positive integer');
    }
    out.generation = o.generation;
  }
  if (o.model !== undefined) {
    if (typeof o.model !== 'string' || o.model.trim() === '') {
      throw bad('invalid_model', 'model must be a non-empty string');
    }
    out.model = o.model;
  }
  if (out.action !== 'acquire' && out.owner === undefined) {
    throw bad('missing_owner', `${out.action} needs the owner token an acquire returned`);
  }
  if ((out.action === 'renew' || out.action === 'release') && out.generation === undefined) {
    throw bad('missing_generation', `${out.action} needs the lease's generation`);
  }
  return out;
}

function replyBody(lease: Lease, owner?: string): Record<string, unknown> {
  const s = lease.status;
  return {
    ...(owner ? { owner } : {}),
    generation: lease.generation,
    connection: lease.connection,
    state: s.name,
    expiresAt: lease.expiresAt,
    ...(s.name === 'ACTIVE' ? {} : { endReason: s.reason, endedAt: s.endedAt }),
  };
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Owns every lease transition: acquire, renew, release, operator release, lazy expiry, a
 * managed request's move to another connection, and the reconciliation with the configured
 * keys at start. Each transition emits exactly one `lease.acquired` or `lease.ended`.
 */
export class LeaseService {
  private readonly keys: ReadonlyMap<string, GatewayApiKeyConfig>;
  /** ACTIVE leases as stored (re-read after every write; this process is the only writer). */
  private cache: Lease[] | null = null;

  constructor(private readonly deps: LeaseServiceDeps) {
    this.keys = new Map(deps.keys.map((k) => [k.name, k]));
  }

  // ---------------------------------------------------------------- state access

  private activeLeases(): Lease[] {
    this.cache ??= this.deps.repo.active();
    return this.cache;
  }

  /** Runs a read-decide-write in one IMMEDIATE transaction, expiring due leases first. */
  private write<T>(now: number, fn: (events: EngineEvent[]) => T): T {
    const events: EngineEvent[] = [];
    let result: T;
    try {
      result = this.deps.repo.atomically(() => {
        for (const l of this.deps.repo.expireDue(now)) events.push(this.ended(l, now));
        return fn(events);
      });
    } finally {
      this.cache = null;
    }
    // Only a committed transaction announces its changes (a refusal rolled everything back).
    for (const e of events) this.deps.emit(e);
    return result;
  }

  /** Lazy expiry: promotes leases past their expiry before anything reads them. */
  private expire(now: number): void {
    if (this.activeLeases().some((l) => l.expiresAt <= now)) this.write(now, () => undefined);
  }

  private acquired(lease: Lease, at: number, cause: string): EngineEvent {
    return { type: 'lease.acquired', at, lease: leaseView(lease), cause };
  }

  private ended(lease: Lease, at: number, cause?: string): EngineEvent {
    const s = lease.status;
    const why =
      cause ??
      (s.name === 'ACTIVE'
        ? 'ended'
        : {
            released: 'released by its owner',
            released_by_operator: 'released by the operator',
            ttl_elapsed: 'expired (not renewed in time)',
            superseded: 'superseded by a newer generation of the same owner',
            key_revoked: 'its API key no longer has the lease scope',
            connection_not_allowed: "the connection is no longer in its key's allowedConnections",
            connection_removed: 'its connection was removed',
          }[s.reason]);
    return { type: 'lease.ended', at, lease: leaseView(lease), cause: why };
  }

  private transition(lease: Lease, command: LeaseCommand, now: number): Lease {
    const t = apply(lease, command, now);
    if (!t.ok) throw new ReplyError(FENCE_STATUS[t.code], t.code, t.message);
    this.deps.repo.update(t.lease);
    return t.lease;
  }

  // ---------------------------------------------------------------- start

  /**
   * Ends ACTIVE leases the configuration no longer allows: their key is gone or lost the scope,
   * their connection left the key's allowedConnections, or the connection was removed. Runs at
   * start and after every catalog reload. Also prunes old ended rows.
   */
  reconcile(now: number): void {
    this.write(now, (events) => {
      for (const l of this.deps.repo.active()) {
        const key = this.keys.get(l.keyName) ?? null;
        const reason = !canHoldLeases(key)
          ? ('key_revoked' as const)
          : !key!.allowedConnections!.includes(l.connection)
            ? ('connection_not_allowed' as const)
            : !this.deps.catalog().connections.has(l.connection)
              ? ('connection_removed' as const)
              : null;
        if (!reason) continue;
        const ended = this.transition(l, { type: 'invalidate', reason }, now);
        events.push(this.ended(ended, now));
        this.deps.log.info(`lease on ${l.connection} invalidated (${reason})`);
      }
      this.deps.repo.prune(now - ENDED_RETENTION_MS);
    });
  }

  // ---------------------------------------------------------------- views

  views(now: number): LeaseView[] {
    this.expire(now);
    return this.activeLeases().map(leaseView);
  }

  /** Operator release (dashboard, admin API). Null when the connection holds no active lease. */
  releaseConnection(connection: string, now: number): LeaseView | null {
    return this.write(now, (events) => {
      const l = this.deps.repo.active().find((x) => x.connection === connection);
      if (!l) return null;
      const ended = this.transition(l, { type: 'release', reason: 'released_by_operator' }, now);
      events.push(this.ended(ended, now));
      this.deps.log.info(
        `lease on ${connection} (generation ${l.generation}) released by the operator`,
      );
      return leaseView(ended);
    });
  }

  // ---------------------------------------------------------------- the endpoint

  /** `POST /api/v1/session-leases` for an identified gateway key. */
  handle(key: GatewayApiKeyConfig | null, body: unknown, now: number): LeaseReply {
    try {
      if (!canHoldLeases(key)) throw new ReplyError(403, 'lease_scope_required', scopeMessage(key));
      const req = parseRequest(body);
      switch (req.action) {
        case 'acquire':
          return this.acquire(key!, req, now);
        case 'renew':
        case 'release':
          return this.renewOrRelease(key!, req, now);
        case 'status':
          return this.status(key!, req, now);
      }
    } catch (err) {
      if (!(err instanceof ReplyError)) throw err;
      return {
        status: err.status,
        body: { error: { code: err.code, message: err.message, ...err.extra } },
        headers: err.headers,
      };
    }
  }

  private acquire(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    const token = req.owner ?? ownerTokenFrom(this.deps.random?.() ?? randomBytes(32));
    const ownerHash = hashOwner(token);
    const ttl = clampTtl(req.ttlMs);
    const lease = this.write(now, (events) => {
      const repo = this.deps.repo;
      let previous: Lease | null = null;
      if (req.owner) {
        const latest = repo.latestForOwner(ownerHash, key.name);
        if (!latest) {
          throw new ReplyError(
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
        return h && h.id !== previous?.id ? h.expiresAt : null;
      };
      const slots = this.acquireOptions(key, req.model, now).map((o) => ({
        ...o,
        heldUntil: heldUntil(o.connection),
      }));
      const grant = chooseConnection(slots, previous?.connection ?? null, now);
      if (grant.kind === 'none') {
        throw new ReplyError(
          404,
          'no_leasable_connection',
          `none of the connections allowed for API key "${key.name}" (${key.allowedConnections!.join(', ')}) exists, is enabled${req.model ? ` and serves "${req.model}"` : ''}`,
        );
      }
      if (grant.kind === 'wait') throw this.capacityReply(grant.retryAfterMs);
      if (previous) {
        const ended = this.transition(previous, { type: 'invalidate', reason: 'superseded' }, now);
        events.push(this.ended(ended, now));
      }
      const created = repo.insert({
        id: 0,
        ownerHash,
        keyName: key.name,
        connection: grant.connection,
        generation: nextGeneration(repo.maxGeneration(ownerHash)),
        acquiredAt: now,
        expiresAt: now + ttl,
        status: { name: 'ACTIVE' },
      });
      events.push(
        this.acquired(
          created,
          now,
          `acquired by API key "${key.name}" for ${Math.round(ttl / 1000)} s (generation ${created.generation})`,
        ),
      );
      return created;
    });
    this.deps.log.info(
      `lease on ${lease.connection} acquired by API key "${key.name}" (generation ${lease.generation})`,
    );
    return { status: 200, body: replyBody(lease, token) };
  }

  /** Connections an acquire may get: the key's allowed ones that exist, enabled, serving `model`. */
  private acquireOptions(
    key: GatewayApiKeyConfig,
    model: string | undefined,
    now: number,
  ): Omit<Slot<string>, 'heldUntil'>[] {
    const catalog = this.deps.catalog();
    const allowed = key.allowedConnections ?? [];
    if (model === undefined) {
      return allowed.flatMap((id) => {
        const c = catalog.connections.get(id);
        const p = c ? catalog.providers.get(c.provider) : undefined;
        if (!c?.enabled || !p?.enabled) return [];
        return [{ item: id, connection: id, eligible: this.deps.connectionEligible(c, now) }];
      });
    }
    const resolution = resolveModel(catalog, model);
    if (resolution.kind !== 'targets') {
      throw new ReplyError(404, 'model_not_found', `model "${model}" is not known to Breakwater`);
    }
    const candidates = expandCandidates(resolution.targets).candidates;
    return allowed.flatMap((id) => {
      const here = candidates.filter((c) => c.connection.id === id);
      if (here.length === 0) return [];
      const eligible = here.some((c) => this.deps.exclusion(c, now) === null);
      return [{ item: id, connection: id, eligible }];
    });
  }

  private capacityReply(retryAfterMs: number): ReplyError {
    const seconds = retryAfterSeconds(retryAfterMs);
    return new ReplyError(
      429,
      'LEASE_CAPACITY_UNAVAILABLE',
      `every eligible connection this key may lease is held by another client's exclusive lease; retry in ${seconds} s`,
      { state: 'WAITING_FOR_CAPACITY', retryAfterMs },
      { 'retry-after': String(seconds) },
    );
  }

  /** The owner's newest lease under this key, fenced by the presented generation. */
  private fenced(key: GatewayApiKeyConfig, owner: string, generation: number, now: number): Lease {
    const latest = this.deps.repo.latestForOwner(hashOwner(owner), key.name);
    const d = fence(latest, generation, now);
    if (d.kind === 'refuse') throw new ReplyError(FENCE_STATUS[d.code], d.code, d.message);
    return d.lease;
  }

  private renewOrRelease(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    const lease = this.write(now, (events) => {
      const l = this.fenced(key, req.owner!, req.generation!, now);
      if (req.action === 'renew') {
        const ttl = clampTtl(req.ttlMs);
        const renewed = this.transition(l, { type: 'renew', ttlMs: ttl }, now);
        events.push(this.acquired(renewed, now, `renewed for ${Math.round(ttl / 1000)} s`));
        return renewed;
      }
      const released = this.transition(l, { type: 'release', reason: 'released' }, now);
      events.push(this.ended(released, now));
      return released;
    });
    if (req.action === 'release') {
      this.deps.log.info(`lease on ${lease.connection} (generation ${lease.generation}) released`);
    }
    return { status: 200, body: replyBody(lease) };
  }

  private status(key: GatewayApiKeyConfig, req: LeaseRequest, now: number): LeaseReply {
    this.expire(now);
    const latest = this.deps.repo.latestForOwner(hashOwner(req.owner!), key.name);
    if (!latest) {
      throw new ReplyError(
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
  fence(
    key: GatewayApiKeyConfig | null,
    headers: IncomingHttpHeaders,
    now: number,
  ): { ok: true; managed: ManagedLease | null } | { ok: false; error: GatewayError } {
    const owner = headerValue(headers, LEASE_OWNER_HEADER);
    const generation = headerValue(headers, LEASE_GENERATION_HEADER);
    if (owner === undefined && generation === undefined) return { ok: true, managed: null };
    const refuse = (status: number, code: string, message: string) => ({
      ok: false as const,
      error: {
        status,
        kind: status === 403 ? ('permission' as const) : ('invalid_request' as const),
        code,
        message,
      },
    });
    if (owner === undefined || generation === undefined) {
      return refuse(
        400,
        'invalid_lease_headers',
        `a managed request sends both ${LEASE_OWNER_HEADER} and ${LEASE_GENERATION_HEADER}`,
      );
    }
    if (!canHoldLeases(key)) return refuse(403, 'lease_scope_required', scopeMessage(key));
    if (!OWNER_TOKEN_PATTERN.test(owner)) {
      return refuse(
        400,
        'invalid_lease_headers',
        `${LEASE_OWNER_HEADER} is not a bwl_… owner token`,
      );
    }
    const gen = /^[1-9]\d{0,15}$/.test(generation) ? Number(generation) : Number.NaN;
    if (!Number.isSafeInteger(gen)) {
      return refuse(
        400,
        'invalid_lease_headers',
        `${LEASE_GENERATION_HEADER} must be a positive integer`,
      );
    }
    this.expire(now);
    const d = fence(this.deps.repo.latestForOwner(hashOwner(owner), key!.name), gen, now);
    // Every fence refusal is a conflict with the lease's current state: 409 before dispatch.
    if (d.kind === 'refuse') return refuse(409, d.code, d.message);
    return {
      ok: true,
      managed: {
        leaseId: d.lease.id,
        keyName: d.lease.keyName,
        generation: d.lease.generation,
        connection: d.lease.connection,
        allowed: new Set(key!.allowedConnections),
      },
    };
  }

  /**
   * Filters and orders a request's candidates by the leases in force: others' leased
   * connections are skipped; a managed request goes to its own connection, or moves to a free
   * eligible allowed one. Returns a 429 `LEASE_CAPACITY_UNAVAILABLE` when the only thing in the
   * way is other clients' leases.
   */
  plan(
    managed: ManagedLease | null,
    candidates: readonly Candidate[],
    now: number,
  ): LeasePlan | GatewayError {
    this.expire(now);
    const active = this.activeLeases();
    if (active.length === 0 && managed === null) return { candidates, skipped: [], note: null };
    const holder = new Map(active.map((l) => [l.connection, l]));
    const slot = (c: Candidate): Slot<Candidate> => {
      const h = holder.get(c.connection.id);
      return {
        item: c,
        connection: c.connection.id,
        eligible: this.deps.exclusion(c, now) === null,
        heldUntil: h && h.id !== managed?.leaseId ? h.expiresAt : null,
      };
    };
    const label = (c: Candidate) => `${c.target.label}@${c.connection.id}`;
    const skippedHeld = (held: Slot<Candidate>[]): LeaseSkip[] =>
      held.map((s) => {
        // A leased connection that is also unhealthy is reported by its resilience timer.
        const ex = s.eligible ? null : this.deps.exclusion(s.item, now);
        return ex
          ? {
              target: label(s.item),
              reason: ex.reason,
              retryAfterMs: ex.retryAfterMs,
              detail: `${ex.detail}; also leased`,
            }
          : {
              target: label(s.item),
              reason: 'leased',
              retryAfterMs: null,
              detail: `${s.connection} is held by another client's exclusive lease`,
            };
      });

    if (managed === null) {
      const d = decideCapacity(candidates.map(slot), now);
      if (d.kind === 'wait') return this.capacityError(d.retryAfterMs);
      return { candidates: d.use.map((s) => s.item), skipped: skippedHeld(d.held), note: null };
    }

    const own = candidates.filter((c) => c.connection.id === managed.connection).map(slot);
    const pool = candidates
      .filter((c) => c.connection.id !== managed.connection && managed.allowed.has(c.connection.id))
      .map(slot);
    const notAllowed: LeaseSkip[] = candidates
      .filter(
        (c) => c.connection.id !== managed.connection && !managed.allowed.has(c.connection.id),
      )
      .map((c) => ({
        target: label(c),
        reason: 'not_allowed_for_lease',
        retryAfterMs: null,
        detail: `${c.connection.id} is not in the allowedConnections of API key "${managed.keyName}"`,
      }));
    const p = planManaged(own, pool, now);
    if (p.kind === 'wait') return this.capacityError(p.retryAfterMs);
    return {
      candidates: p.use,
      skipped: p.use.length === 0 ? [...skippedHeld(p.held), ...notAllowed] : skippedHeld(p.held),
      note: `lease g${managed.generation} on ${managed.connection}${p.moving ? ' (not eligible: may move)' : ''}`,
    };
  }

  private capacityError(retryAfterMs: number): GatewayError {
    const seconds = retryAfterSeconds(retryAfterMs);
    return {
      status: 429,
      kind: 'rate_limit',
      code: 'LEASE_CAPACITY_UNAVAILABLE',
      message: `every eligible connection for this request is held by another client's exclusive lease; retry in ${seconds} s`,
      headers: { 'retry-after': String(seconds) },
      extra: { state: 'WAITING_FOR_CAPACITY', retryAfterMs },
    };
  }

  /**
   * Whether a candidate added late (the emergency fallback) respects the leases: never another
   * client's leased connection; for a managed request, only its key's allowed connections.
   */
  allows(managed: ManagedLease | null, candidate: Candidate, now: number): boolean {
    const id = candidate.connection.id;
    if (managed && id !== managed.connection && !managed.allowed.has(id)) return false;
    this.expire(now);
    const h = this.activeLeases().find((l) => l.connection === id);
    return !h || h.id === managed?.leaseId;
  }

  /**
   * Called once a managed request was served: when another connection served it (its own was
   * not eligible), the lease moves there with the same generation, unless someone took that
   * connection meanwhile.
   */
  served(managed: ManagedLease | null, connection: string, now: number): void {
    if (!managed || connection === managed.connection) return;
    this.write(now, (events) => {
      const l = this.deps.repo.byId(managed.leaseId);
      if (!l || current(l, now).status.name !== 'ACTIVE' || l.connection !== managed.connection)
        return;
      if (this.deps.repo.active().some((x) => x.connection === connection)) {
        this.deps.log.warn(
          `lease g${l.generation}: cannot move to ${connection}, another lease holds it`,
        );
        return;
      }
      const moved = this.transition(l, { type: 'move', connection }, now);
      events.push(
        this.ended(
          { ...l, status: { name: 'RELEASED', endedAt: now, reason: 'released' } },
          now,
          `moved to ${connection} (same generation)`,
        ),
      );
      events.push(this.acquired(moved, now, `moved from ${l.connection}, which was not eligible`));
      this.deps.log.info(`lease g${l.generation} moved from ${l.connection} to ${connection}`);
    });
  }
}
