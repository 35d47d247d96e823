// Exclusive session leases (RESILIENCE.md §10): the fence of a proxy request. A managed request
// names its lease by two headers; a request whose lease is not its owner's newest ACTIVE one is
// refused before anything is dispatched.

import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayApiKeyConfig } from '../../../../shared/contract';
import type { Lease } from '../../store/state-records';
import type { GatewayError } from '../../wire/client-errors';
import { fence, hashOwner, LEASE_SCOPE, OWNER_TOKEN_PATTERN } from './lease';

export const LEASE_OWNER_HEADER = 'x-breakwater-lease-owner';
export const LEASE_GENERATION_HEADER = 'x-breakwater-lease-generation';

/** A request that passed the fence: it owns `connection` with `generation`. */
export interface ManagedLease {
  leaseId: number;
  keyName: string;
  generation: number;
  connection: string;
  allowed: ReadonlySet<string>;
}

export type FenceResult =
  | { ok: true; managed: ManagedLease | null }
  | { ok: false; error: GatewayError };

/** A request that names no lease: the same answer for all of them, made once. */
const UNMANAGED: FenceResult = Object.freeze({ ok: true, managed: null });

export function canHoldLeases(key: GatewayApiKeyConfig | null): key is GatewayApiKeyConfig {
  return (
    key !== null &&
    (key.scopes ?? []).includes(LEASE_SCOPE) &&
    (key.allowedConnections ?? []).length > 0
  );
}

export function scopeMessage(key: GatewayApiKeyConfig | null): string {
  if (!key) {
    return 'exclusive leases need a gateway API key (gateway.apiKeys in the config, or POST /api/keys) with scope "lease:exclusive" and a non-empty allowedConnections';
  }
  return `API key "${key.name}" may not hold exclusive leases: give it the scope "lease:exclusive" and a non-empty allowedConnections (gateway.apiKeys, or PATCH /api/keys/{id})`;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function refuse(status: number, code: string, message: string): FenceResult {
  return {
    ok: false,
    error: { status, kind: status === 403 ? 'permission' : 'invalid_request', code, message },
  };
}

/**
 * Reads the lease headers of a proxy request. No headers: an unmanaged request (`managed`
 * null). `latestForOwner` is asked only once the headers are well-formed.
 */
export function fenceHeaders(
  key: GatewayApiKeyConfig | null,
  headers: IncomingHttpHeaders,
  latestForOwner: (ownerHash: string, keyName: string, now: number) => Lease | null,
  now: number,
): FenceResult {
  const owner = headerValue(headers, LEASE_OWNER_HEADER);
  const generation = headerValue(headers, LEASE_GENERATION_HEADER);
  if (owner === undefined && generation === undefined) return UNMANAGED;
  if (owner === undefined || generation === undefined) {
    return refuse(
      400,
      'invalid_lease_headers',
      `a managed request sends both ${LEASE_OWNER_HEADER} and ${LEASE_GENERATION_HEADER}`,
    );
  }
  if (!canHoldLeases(key)) return refuse(403, 'lease_scope_required', scopeMessage(key));
  if (!OWNER_TOKEN_PATTERN.test(owner)) {
    return refuse(400, 'invalid_lease_headers', `${LEASE_OWNER_HEADER} is not a bwl_… owner token`);
  }
  const gen = /^[1-9]\d{0,15}$/.test(generation) ? Number(generation) : Number.NaN;
  if (!Number.isSafeInteger(gen)) {
    return refuse(
      400,
      'invalid_lease_headers',
      `${LEASE_GENERATION_HEADER} must be a positive integer`,
    );
  }
  const d = fence(latestForOwner(hashOwner(owner), key.name, now), gen, now);
  // Every fence refusal is a conflict with the lease's current state: 409 before dispatch.
  if (d.kind === 'refuse') return refuse(409, d.code, d.message);
  return {
    ok: true,
    managed: {
      leaseId: d.lease.id,
      keyName: d.lease.keyName,
      generation: d.lease.generation,
      connection: d.lease.connection,
      allowed: new Set(key.allowedConnections),
    },
  };
}
