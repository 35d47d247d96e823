// Team mode for connection quotas: what this instance learns is sent; a peer's quota is kept only
// when newer than the one held, and is never sent on (no echo around the team).
import { describe, expect, it } from 'vitest';
import { QuotaBook } from '../../src/main/engine/routing/quota-book';
import { emptyQuota, type Quota } from '../../src/main/engine/routing/rate-limit-headers';
import { recorder } from '../support/state-recorder';

function quota(remaining: number, learnedAt: number): Quota {
  return { ...emptyQuota(learnedAt), requests: { remaining, limit: 100, resetAt: null } };
}

describe('QuotaBook in team mode', () => {
  it('sends what it learns', () => {
    const shared = recorder();
    const book = new QuotaBook(null, () => {}, shared);
    book.learn('c1', quota(42, 1_000));
    expect(book.get('c1')).toEqual(quota(42, 1_000));
    expect(shared.sent).toEqual([{ kind: 'quota', id: 'c1', value: quota(42, 1_000) }]);
  });

  it("adopts a peer's newer quota without sending it on, and keeps its own when newer", () => {
    const shared = recorder();
    const book = new QuotaBook(null, () => {}, shared);
    shared.deliver({ kind: 'quota', id: 'c1', value: quota(10, 2_000) });
    expect(book.get('c1')).toEqual(quota(10, 2_000));
    book.learn('c1', quota(9, 3_000));
    shared.deliver({ kind: 'quota', id: 'c1', value: quota(50, 2_500) });
    shared.deliver({ kind: 'quota', id: 'c1', value: quota(60, 3_000) });
    expect(book.get('c1')).toEqual(quota(9, 3_000));
    expect(shared.sent).toHaveLength(1);
  });

  it('ignores what is not a quota', () => {
    const shared = recorder();
    const book = new QuotaBook(null, () => {}, shared);
    shared.deliver({ kind: 'quota', id: 'c1', value: { requests: { remaining: 1 } } });
    shared.deliver({ kind: 'quota', id: 'c2', value: { learnedAt: 5, requests: 'x' } });
    shared.deliver({ kind: 'health', id: 'c3', value: quota(1, 5) });
    for (const c of ['c1', 'c2', 'c3']) expect(book.get(c)).toBeUndefined();
  });
});
