// Exclusive session leases (RESILIENCE.md §10): which connections a request or an acquire may
// use, given the leases in force and the resilience verdicts. Reads only: no store, no events.

import type { GatewayApiKeyConfig } from '../../../../shared/contract';
import type { Catalog, CatalogConnection } from '../../config/catalog';
import { type Candidate, expandCandidates, resolveModel } from '../../routing/resolve';
import type { Lease } from '../../store/state-records';
import type { GatewayError } from '../../wire/client-errors';
import type { Exclusion } from '../health';
import type { ManagedLease } from './fence';
import { decideCapacity, planManaged, retryAfterSeconds, type Slot } from './lease';

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

/** Resilience verdict for one candidate (breaker, cooldown, lockout); null = eligible. */
export type ExclusionOf = (candidate: Candidate, now: number) => Exclusion | null;

function capacityError(retryAfterMs: number): GatewayError {
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

const label = (c: Candidate) => `${c.target.label}@${c.connection.id}`;

/**
 * Filters and orders a request's candidates by the leases in force (`active`): others' leased
 * connections are skipped; a managed request goes to its own connection, or moves to a free
 * eligible allowed one. A 429 `LEASE_CAPACITY_UNAVAILABLE` when the only thing in the way is
 * other clients' leases.
 */
export function planLeases(
  managed: ManagedLease | null,
  candidates: readonly Candidate[],
  active: readonly Lease[],
  exclusion: ExclusionOf,
  now: number,
): LeasePlan | GatewayError {
  if (active.length === 0 && managed === null) return { candidates, skipped: [], note: null };
  const holder = new Map(active.map((l) => [l.connection, l]));
  const slot = (c: Candidate): Slot<Candidate> => {
    const h = holder.get(c.connection.id);
    return {
      item: c,
      connection: c.connection.id,
      eligible: exclusion(c, now) === null,
      heldUntil: h && h.id !== managed?.leaseId ? h.expiresAt : null,
    };
  };
  const skippedHeld = (held: Slot<Candidate>[]): LeaseSkip[] =>
    held.map((s) => {
      // A leased connection that is also unhealthy is reported by its resilience timer.
      const ex = s.eligible ? null : exclusion(s.item, now);
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
    if (d.kind === 'wait') return capacityError(d.retryAfterMs);
    return { candidates: d.use.map((s) => s.item), skipped: skippedHeld(d.held), note: null };
  }

  const own = candidates.filter((c) => c.connection.id === managed.connection).map(slot);
  const others = candidates.filter((c) => c.connection.id !== managed.connection);
  const pool = others.filter((c) => managed.allowed.has(c.connection.id)).map(slot);
  const notAllowed: LeaseSkip[] = others
    .filter((c) => !managed.allowed.has(c.connection.id))
    .map((c) => ({
      target: label(c),
      reason: 'not_allowed_for_lease',
      retryAfterMs: null,
      detail: `${c.connection.id} is not in the allowedConnections of API key "${managed.keyName}"`,
    }));
  const p = planManaged(own, pool, now);
  if (p.kind === 'wait') return capacityError(p.retryAfterMs);
  return {
    candidates: p.use,
    skipped: p.use.length === 0 ? [...skippedHeld(p.held), ...notAllowed] : skippedHeld(p.held),
    note: `lease g${managed.generation} on ${managed.connection}${p.moving ? ' (not eligible: may move)' : ''}`,
  };
}

/**
 * Connections an acquire may get: the key's allowed ones that exist and are enabled, and when
 * a model is named, serve it (eligible when one of its candidates there is not excluded).
 * `unknown_model` when the model names nothing Breakwater knows.
 */
export function acquireOptions(
  catalog: Catalog,
  key: GatewayApiKeyConfig,
  model: string | undefined,
  verdicts: {
    exclusion: ExclusionOf;
    connectionEligible(connection: CatalogConnection, now: number): boolean;
  },
  now: number,
): Omit<Slot<string>, 'heldUntil'>[] | 'unknown_model' {
  const allowed = key.allowedConnections ?? [];
  if (model === undefined) {
    return allowed.flatMap((id) => {
      const c = catalog.connections.get(id);
      const p = c ? catalog.providers.get(c.provider) : undefined;
      if (!c?.enabled || !p?.enabled) return [];
      return [{ item: id, connection: id, eligible: verdicts.connectionEligible(c, now) }];
    });
  }
  const resolution = resolveModel(catalog, model);
  if (resolution.kind !== 'targets') return 'unknown_model';
  const candidates = expandCandidates(resolution.targets).candidates;
  return allowed.flatMap((id) => {
    const here = candidates.filter((c) => c.connection.id === id);
    if (here.length === 0) return [];
    const eligible = here.some((c) => verdicts.exclusion(c, now) === null);
    return [{ item: id, connection: id, eligible }];
  });
}
