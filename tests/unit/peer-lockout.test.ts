// A model lockout another instance published: when it was set (issue 29's re-probe interval runs
// from it) is read like every peer time, bounded by this instance's clock.
import { describe, expect, it } from 'vitest';
import { readPeerMessage } from '../../src/shared/schema/peer-records';

const NOW = 1_800_000_000_000;
const LOCK = {
  key: 'p:c:m',
  provider: 'p',
  connection: 'c',
  model: 'm',
  subject: 'm',
  scope: 'model',
  reason: 'not_found',
  failureCount: 1,
  expiresAt: NOW + 3_600_000,
};

const read = (over: object) =>
  readPeerMessage(
    JSON.stringify({ from: 'peer', kind: 'lockout', id: LOCK.key, v: { ...LOCK, ...over } }),
    NOW,
  ).change.value as { lockedAt: number | null } | null;

describe('a peer lockout’s lockedAt', () => {
  it('is kept when valid and null when absent (a peer of an older version)', () => {
    expect(read({ lockedAt: NOW - 5_000 })?.lockedAt).toBe(NOW - 5_000);
    expect(read({})?.lockedAt).toBeNull();
    expect(read({ lockedAt: null })?.lockedAt).toBeNull();
  });

  it('is bounded to now when it claims the future, so no peer can postpone a probe forever', () => {
    expect(read({ lockedAt: 9e15 })?.lockedAt).toBe(NOW);
  });

  it.each([['soon'], [-1], [{}], [[1]], [true]])('refuses %j', (lockedAt) => {
    expect(() => read({ lockedAt })).toThrow(/lockedAt/);
  });
});
