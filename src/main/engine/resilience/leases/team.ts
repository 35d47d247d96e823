// Team mode for exclusive session leases (RESILIENCE.md §10, issue 16). Each instance keeps every
// team lease in its own SQLite table, the mirror its fence and plan read: a lease written here is
// sent to the others once its transaction commits, and a lease written elsewhere is written here
// (by owner and generation; row ids are each instance's own).

import type { EngineEvent } from '../../../../shared/contract';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import type { StateBackend } from '../../state/backend';
import type { LeaseRepo } from '../../store/leases';
import type { Lease } from '../../store/state-records';
import { acquiredEvent, endedEvent } from './ledger';

/** An ended lease stays shared this long (its generation fences the owner's older holders). */
const ENDED_SHARED_MS = 3_600_000;

/**
 * The repository with every committed insert and update also sent to the team. Changes made in a
 * transaction that rolls back (a refusal) are never sent.
 */
export function teamLeaseRepo(
  repo: LeaseRepo,
  shared: StateBackend,
  clock: Clock,
  adopt: (remote: Lease) => void,
): LeaseRepo {
  if (shared.kind === 'local') return repo;
  // A lease adopted from another instance is written here without being sent back.
  let adopting = false;
  shared.onChange((c) => {
    if (c.kind !== 'lease' || !c.value) return;
    adopting = true;
    try {
      adopt(c.value as Lease);
    } finally {
      adopting = false;
    }
  });
  const now = () => clock.now();
  let depth = 0;
  let outbox: Lease[] = [];
  const send = (l: Lease) => {
    const ttl =
      l.status.name === 'ACTIVE' ? l.expiresAt - now() + ENDED_SHARED_MS : ENDED_SHARED_MS;
    shared.put({ kind: 'lease', id: `${l.ownerHash}:${l.generation}`, value: l }, ttl);
    // An ended lease (operator release, revoked key, superseded, expired) frees the team's claim.
    if (l.status.name !== 'ACTIVE') {
      const { connection, ownerHash, generation } = l;
      void shared.fenceLease({ connection, ownerHash, generation, action: 'release', ttlMs: 0 });
    }
  };
  const note = (l: Lease) => {
    if (adopting) return;
    if (depth > 0) outbox.push(l);
    else send(l);
  };
  return {
    ...repo,
    atomically<T>(fn: () => T): T {
      depth++;
      try {
        const result = repo.atomically(fn);
        if (depth === 1) for (const l of outbox) send(l);
        return result;
      } finally {
        depth--;
        if (depth === 0) outbox = [];
      }
    },
    insert(lease) {
      const stored = repo.insert(lease);
      note(stored);
      return stored;
    },
    update(lease) {
      repo.update(lease);
      note(lease);
    },
  };
}

/** Of two leases on one connection taken on two instances at once, the earlier one stands. */
function firstOf(a: Lease, b: Lease): Lease {
  if (a.acquiredAt !== b.acquiredAt) return a.acquiredAt < b.acquiredAt ? a : b;
  return a.ownerHash < b.ownerHash ? a : b;
}

function superseded(l: Lease, now: number): Lease {
  return { ...l, status: { name: 'INVALIDATED', endedAt: now, reason: 'superseded' } };
}

/**
 * Writes a lease another instance changed into this instance's table (inside a ledger write) and
 * announces it. Two acquires of one connection on two instances within the pub/sub delay: every
 * instance keeps the earlier and ends the other, so all agree on one holder.
 */
export function adoptLease(
  repo: LeaseRepo,
  remote: Lease,
  events: EngineEvent[],
  log: Logger,
  now: number,
): void {
  const latest = repo.latestForOwner(remote.ownerHash, remote.keyName);
  if (latest && latest.generation > remote.generation) return;
  if (latest && latest.generation === remote.generation) {
    repo.update({ ...remote, id: latest.id });
    events.push(
      remote.status.name === 'ACTIVE'
        ? acquiredEvent(remote, now, 'renewed on another instance')
        : endedEvent(remote, now),
    );
    return;
  }
  let incoming = remote;
  if (remote.status.name === 'ACTIVE') {
    for (const l of repo.active()) {
      if (l.ownerHash !== remote.ownerHash && l.connection !== remote.connection) continue;
      if (l.ownerHash !== remote.ownerHash && firstOf(l, remote) === l) {
        incoming = superseded(remote, now);
        continue;
      }
      const ended = superseded(l, now);
      repo.update(ended);
      events.push(endedEvent(ended, now, 'taken on another instance'));
      log.warn(`lease g${l.generation} on ${l.connection} ended: taken on another instance`);
    }
  }
  repo.insert({ ...incoming, id: 0 });
  if (incoming.status.name === 'ACTIVE')
    events.push(
      acquiredEvent(incoming, now, `on another instance (generation ${incoming.generation})`),
    );
}
