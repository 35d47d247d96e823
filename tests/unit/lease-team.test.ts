// Team leases on real SQLite: committed writes are sent (refused ones never), adopted ones are
// not sent back, and two acquires of one connection on two instances end the same on both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptLease, teamLeaseRepo } from '../../src/main/engine/resilience/leases/team';
import { openStore, type Store } from '../../src/main/engine/store';
import type { Lease } from '../../src/main/engine/store/state-records';
import type { EngineEvent } from '../../src/shared/contract';
import { captureLogger } from '../support/gateway';
import { recorder } from '../support/state-recorder';

function lease(owner: string, acquiredAt: number): Lease {
  return {
    id: 0,
    ownerHash: owner,
    keyName: owner,
    connection: 'c1',
    generation: 1,
    acquiredAt,
    expiresAt: acquiredAt + 60_000,
    status: { name: 'ACTIVE' },
  };
}

let dir: string;
let a: Store;
let b: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bw-lease-team-'));
  a = openStore(join(dir, 'a.sqlite'));
  b = openStore(join(dir, 'b.sqlite'));
});
afterEach(() => {
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('team leases', () => {
  it('sends a write once its transaction commits, never a refused one, never an adopted one', () => {
    const shared = recorder();
    const clock = { now: () => 1_000 };
    const repo = teamLeaseRepo(a.leases, shared, clock, (l) =>
      repo.atomically(() => adoptLease(repo, l, [], captureLogger(), clock.now())),
    );
    expect(() =>
      repo.atomically(() => {
        repo.insert(lease('o1', 100));
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(shared.sent).toEqual([]);
    repo.atomically(() => {
      repo.insert(lease('o1', 100));
      expect(shared.sent).toEqual([]);
    });
    expect(shared.sent.map((c) => c.id)).toEqual(['o1:1']);
    shared.deliver({ kind: 'lease', id: 'o2:1', value: { ...lease('o2', 50), connection: 'c2' } });
    expect(a.leases.latestForOwner('o2', 'o2')?.status.name).toBe('ACTIVE');
    expect(shared.sent).toHaveLength(1);
  });

  it('two acquires of one connection on two instances: both keep the earlier one', () => {
    const first = a.leases.insert(lease('o1', 100));
    const second = b.leases.insert(lease('o2', 101));
    const onA: EngineEvent[] = [];
    const onB: EngineEvent[] = [];
    a.leases.atomically(() => adoptLease(a.leases, second, onA, captureLogger(), 200));
    b.leases.atomically(() => adoptLease(b.leases, first, onB, captureLogger(), 200));
    for (const s of [a, b]) {
      expect(s.leases.active().map((l) => l.ownerHash)).toEqual(['o1']);
      expect(s.leases.latestForOwner('o2', 'o2')?.status).toMatchObject({
        name: 'INVALIDATED',
        reason: 'superseded',
      });
    }
    expect(onA).toEqual([]);
    expect(onB.map((e) => e.type)).toEqual(['lease.ended', 'lease.acquired']);
  });

  it('an older generation of an owner is not written over a newer one', () => {
    a.leases.insert({ ...lease('o1', 100), generation: 2 });
    a.leases.atomically(() => adoptLease(a.leases, lease('o1', 50), [], captureLogger(), 200));
    expect(a.leases.latestForOwner('o1', 'o1')?.generation).toBe(2);
    expect(a.leases.active()).toHaveLength(1);
  });
});
