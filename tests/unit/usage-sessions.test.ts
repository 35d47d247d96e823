import { describe, expect, it } from 'vitest';
import { BoundedMaps } from '../../src/main/engine/bounded-map';
import type { SessionTotals } from '../../src/main/engine/store';
import type { UsageSample } from '../../src/main/engine/usage/accounting';
import { SessionBook } from '../../src/main/engine/usage/sessions';

const T0 = 1_800_000_000_000;

function sample(session: string, at: number, inputTokens = 10): UsageSample {
  return {
    at,
    provider: 'p',
    connection: 'c',
    model: 'm',
    combo: 'agent',
    keyName: '',
    session,
    inputTokens,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    error: false,
    costUsd: 0.01,
    estimated: false,
  };
}

const ROW = { target: 'p/m', status: 200, decision: null };

/** A roll-up store holding `before` of every session, minutes before T0; counts its reads. */
function rollups(before: Partial<SessionTotals> | null) {
  const reads: Array<{ id: string; since: number; until: number | undefined }> = [];
  return {
    reads,
    session(id: string, since: number, until?: number): SessionTotals | null {
      reads.push({ id, since, until });
      if (!before) return null;
      return {
        provider: 'p',
        model: 'm',
        connection: 'c',
        combo: 'agent',
        lastMinute: T0 - 120_000,
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
        ...before,
      };
    },
  };
}

describe('agent sessions for the status line', () => {
  it('a request never reads the disk; a summary adds the minutes before this process once', () => {
    let now = T0 + 5_000;
    const repo = rollups({ requests: 4, inputTokens: 400 });
    const book = new SessionBook(repo, () => now, new BoundedMaps(() => now));
    book.note(sample('s1', now), ROW);
    book.note(sample('s1', now + 1), ROW);
    expect(repo.reads).toEqual([]);
    const first = book.summary('s1', () => undefined);
    expect(first).toMatchObject({ requests: 6, inputTokens: 420, lastStatus: 200 });
    // Only the minutes before the first one this process counted: none is counted twice.
    expect(repo.reads).toEqual([{ id: 's1', since: now - 7 * 86_400_000, until: T0 }]);
    now += 1_000;
    book.note(sample('s1', now), ROW);
    expect(book.summary('s1', () => undefined)).toMatchObject({ requests: 7, inputTokens: 430 });
    expect(repo.reads).toHaveLength(1);
  });

  it('a session known only to the roll-ups is read once; an unknown one is not re-read for 5 s', () => {
    let now = T0;
    const repo = rollups(null);
    const book = new SessionBook(repo, () => now, new BoundedMaps(() => now));
    expect(book.summary('nobody', () => undefined)).toBeNull();
    expect(book.summary('nobody', () => undefined)).toBeNull();
    expect(repo.reads).toHaveLength(1);
    now += 5_001;
    expect(book.summary('nobody', () => undefined)).toBeNull();
    expect(repo.reads).toHaveLength(2);
  });

  it('a client inventing a session per request (or per poll) fills two capped maps, no more', () => {
    let now = T0;
    const maps = new BoundedMaps(() => now);
    const book = new SessionBook(rollups(null), () => now, maps);
    for (let i = 0; i < 10_000; i++) {
      now++;
      book.note(sample(`s${i}`, now), ROW);
      book.summary(`poll${i}`, () => undefined);
    }
    const stats = maps.stats();
    expect(stats.map((s) => [s.name, s.size])).toEqual([
      ['agent_sessions', 2_000],
      ['agent_session_misses', 2_000],
    ]);
    expect(book.summary('s9999', () => undefined)).toMatchObject({ requests: 1 });
    expect(book.summary('s0', () => undefined)).toBeNull();
  });
});
