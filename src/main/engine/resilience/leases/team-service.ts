// Exclusive leases in team mode (issue 16): an acquire, renew or release is decided by one Redis
// script, atomic across instances, before this instance commits it to its own mirror as without
// team mode. Two instances can no longer both grant one connection; a Redis that cannot answer
// leaves the decision to the instance alone (fail-open).

import type { GatewayApiKeyConfig } from '../../../../shared/contract';
import type { StateBackend } from '../../state/backend';
import { canHoldLeases } from './fence';
import { clampTtl, hashOwner } from './lease';
import { capacityRefusal, endedEvent, LeaseRefusal } from './ledger';
import {
  type LeaseReply,
  type LeaseRequest,
  LeaseService,
  type LeaseServiceDeps,
  refusalReply,
} from './service';

type TeamLeases = Pick<StateBackend, 'claimLease' | 'fenceLease'>;

/** The lease service for the state backend: the team's with Redis, else the local one. */
export function leaseService(shared: StateBackend, deps: LeaseServiceDeps): LeaseService {
  return shared.kind === 'local' ? new LeaseService(deps) : new TeamLeaseService(deps, shared);
}

export class TeamLeaseService extends LeaseService {
  constructor(
    deps: LeaseServiceDeps,
    private readonly team: TeamLeases,
  ) {
    super(deps);
  }

  /**
   * The endpoint in team mode: Redis decides an acquire, renew or release first, in one script
   * atomic across instances, and this instance then commits it as without team mode. When Redis
   * cannot answer, the instance decides alone (`handle`: fail-open).
   */
  override async handleShared(
    key: GatewayApiKeyConfig | null,
    req: LeaseRequest,
    now: number,
  ): Promise<LeaseReply> {
    if (!canHoldLeases(key) || req.action === 'status') return this.handle(key, req, now);
    try {
      if (req.action === 'acquire') return await this.acquireShared(key, req, now);
      return await this.fenceShared(key, req, now);
    } catch (err) {
      if (!(err instanceof LeaseRefusal)) throw err;
      return refusalReply(err);
    }
  }

  private async acquireShared(
    key: GatewayApiKeyConfig,
    req: LeaseRequest,
    now: number,
  ): Promise<LeaseReply> {
    const token = this.ownerToken(req);
    const ownerHash = hashOwner(token);
    const ttl = clampTtl(req.ttlMs);
    const held = new Map<string, number>();
    for (;;) {
      this.ledger.expire(now);
      const choice = this.choose(key, req, ownerHash, now, held);
      const answer = await this.team.claimLease({
        connection: choice.connection,
        ownerHash,
        previous: choice.previous?.connection ?? null,
        generation: this.deps.repo.maxGeneration(ownerHash) ?? 0,
        ttlMs: ttl,
      });
      if (!answer) return this.handle(key, req, now);
      if (answer.kind === 'held') {
        // Held by another instance's client: try the key's other connections, then refuse.
        if (held.has(choice.connection)) throw capacityRefusal(answer.retryAfterMs);
        held.set(choice.connection, now + Math.max(1, answer.retryAfterMs));
        continue;
      }
      const lease = this.ledger.write(now, (events) => {
        // Redis is the authority: a lease of another owner this mirror still shows there ended.
        for (const l of this.deps.repo.active()) {
          if (l.connection !== choice.connection || l.ownerHash === ownerHash) continue;
          const ended = this.ledger.transition(
            l,
            { type: 'invalidate', reason: 'superseded' },
            now,
          );
          events.push(endedEvent(ended, now, 'taken on another instance'));
        }
        return this.grant(key, choice, ownerHash, answer.generation, ttl, events, now);
      });
      return this.granted(key, lease, token);
    }
  }

  private async fenceShared(
    key: GatewayApiKeyConfig,
    req: LeaseRequest,
    now: number,
  ): Promise<LeaseReply> {
    this.ledger.expire(now);
    const l = this.fenced(key, req.owner!, req.generation!, now);
    const answer = await this.team.fenceLease({
      connection: l.connection,
      ownerHash: l.ownerHash,
      generation: l.generation,
      action: req.action === 'renew' ? 'renew' : 'release',
      ttlMs: clampTtl(req.ttlMs),
    });
    if (answer?.kind === 'stale') {
      const message = `lease generation ${l.generation} is stale: generation ${answer.current} superseded it`;
      throw new LeaseRefusal(409, 'LEASE_GENERATION_STALE', message);
    }
    if (answer?.kind === 'taken') {
      const message = "this lease ended: its connection is another client's on another instance";
      throw new LeaseRefusal(409, 'LEASE_NOT_ACTIVE', message);
    }
    return this.renewOrRelease(key, req, now);
  }
}
