// Gateway keys and usage in the admin API (`/api/keys`, `/api/usage`) and the desktop's
// in-process actions: one operation each, so both answer alike.

import type {
  CreatedGatewayKey,
  GatewayKeyView,
  UsageGroupBy,
  UsageQuery,
  UsageReport,
} from '../../../shared/contract';
import { validateKeyInput } from '../../../shared/schema/gateway';
import type { GatewayKeyRecord } from '../store';
import { type KeyRing, KeyRingError } from '../usage/key-ring';
import { UsageQueryError, type UsageService } from '../usage/service';
import { AdminError } from './operations';

export interface KeyOperations {
  keys: KeyRing;
  usage: UsageService;
  now(): number;
}

function view(ops: KeyOperations, r: GatewayKeyRecord): GatewayKeyView {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    allowedConnections: r.allowedConnections,
    limits: r.limits,
    source: r.source,
    createdAt: r.createdAt,
    revokedAt: r.revokedAt,
    spend: ops.usage.budgets.spend(r.name, ops.now()),
  };
}

/** Runs a key or usage operation, turning its refusals into admin answers. */
function guarded<T>(op: () => T): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof KeyRingError) {
      throw new AdminError(err.kind === 'not_found' ? 404 : 409, err.kind, err.message);
    }
    if (err instanceof UsageQueryError) {
      throw new AdminError(400, 'invalid_field', err.message, err.field);
    }
    throw err;
  }
}

export function listKeys(ops: KeyOperations): GatewayKeyView[] {
  return ops.keys.list().map((r) => view(ops, r));
}

export function createKey(ops: KeyOperations, input: unknown): CreatedGatewayKey {
  const valid = validateKeyInput(input, true);
  return guarded(() => {
    const { record, key } = ops.keys.create({ ...valid, name: valid.name! });
    return { id: record.id, name: record.name, key };
  });
}

export function updateKey(ops: KeyOperations, id: string, input: unknown): GatewayKeyView {
  const valid = validateKeyInput(input, false);
  return guarded(() => view(ops, ops.keys.update(id, valid)));
}

export function revokeKey(ops: KeyOperations, id: string): GatewayKeyView {
  return guarded(() => view(ops, ops.keys.revoke(id)));
}

export function rotateKey(ops: KeyOperations, id: string): CreatedGatewayKey {
  return guarded(() => {
    const { record, key } = ops.keys.rotate(id);
    return { id: record.id, name: record.name, key };
  });
}

/** The query string of `GET /api/usage`; the in-process action builds the same one. */
export function usageQueryOf(params: URLSearchParams): UsageQuery {
  const q: UsageQuery = {};
  const since = params.get('since');
  if (since !== null) q.since = since;
  const by = params.get('by');
  if (by !== null) q.by = by as UsageGroupBy;
  const step = params.get('step');
  if (step !== null) q.step = step;
  return q;
}

export function usageReport(ops: KeyOperations, query: UsageQuery): UsageReport {
  return guarded(() => ops.usage.report(query));
}
