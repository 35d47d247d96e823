// Exclusive session leases (RESILIENCE.md §10): the pure state machine, planning which
// connections a request may use, the fence of a proxied request, the SQLite ledger, and the
// team-mode glue that decides acquires on Redis.

export { OWNER_TOKEN_PATTERN } from './lease';
export {
  canHoldLeases,
  type LeaseAction,
  type LeaseReply,
  type LeaseRequest,
  type LeaseService,
  type ManagedLease,
  scopeRefusal,
} from './service';
export { teamLeaseRepo } from './team';
export { leaseService } from './team-service';
