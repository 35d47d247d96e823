// Budget reservations (a handle, released once) and the 80 % warning (once per key, limit and
// window), on the real usage service over a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/main/engine/store';
import { decideReservation, emptyCounters } from '../../src/main/engine/usage/budget';
import { BudgetBook } from '../../src/main/engine/usage/budgets';
import { KeyRing } from '../../src/main/engine/usage/key-ring';
import { UsageService } from '../../src/main/engine/usage/service';
import type { EngineEvent } from '../../src/shared/contract';

const T = Date.UTC(2026, 11, 1, 10, 30, 15);

describe('decideReservation', () => {
  const c = { ...emptyCounters(T), tokensToday: 600 };

  it('fits when used + held + asked stay within the limit', () => {
    const d = decideReservation(
      { tokensPerDay: 1000 },
      c,
      { tokens: 200, usd: 0 },
      { tokens: 200, usd: 0 },
      T,
    );
    expect(d.kind).toBe('allow');
  });

  it('refused because of requests in flight: retry in a second', () => {
    const d = decideReservation(
      { tokensPerDay: 1000 },
      c,
      { tokens: 300, usd: 0 },
      { tokens: 200, usd: 0 },
      T,
    );
    expect(d).toMatchObject({
      kind: 'over',
      limit: 'tokensPerDay',
      retryAfterMs: 1000,
      asked: 200,
      held: 300,
    });
  });

  it('refused on its own: retry when the day ends', () => {
    const d = decideReservation(
      { usdPerMonth: 1 },
      c,
      { tokens: 0, usd: 0 },
      { tokens: 0, usd: 2 },
      T,
    );
    expect(d).toMatchObject({
      kind: 'over',
      limit: 'usdPerMonth',
      retryAfterMs: Date.UTC(2027, 0, 1) - T,
    });
  });
});

describe('BudgetBook reservations', () => {
  it('hold until released; releasing twice gives back once', () => {
    const book = new BudgetBook();
    const limits = { tokensPerDay: 300 };
    const a = book.reserve('k', limits, { tokens: 100, usd: 0 }, T);
    const b = book.reserve('k', limits, { tokens: 100, usd: 0 }, T);
    expect(book.held('k').tokens).toBe(200);
    expect(book.reserve('k', limits, { tokens: 150, usd: 0 }, T).decision.kind).toBe('over');
    a.reservation!.release();
    a.reservation!.release();
    expect(book.held('k').tokens).toBe(100);
    b.reservation!.release();
    expect(book.held('k')).toEqual({ tokens: 0, usd: 0 });
    expect(book.reserve('k', limits, { tokens: 300, usd: 0 }, T).decision.kind).toBe('allow');
  });
});

describe('budget.threshold: once per key, limit and window', () => {
  let dir: string;
  let store: Store;
  let now = T;
  let events: EngineEvent[];
  let usage: UsageService;
  let keys: KeyRing;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bw-usage-'));
    store = openStore(join(dir, 'db.sqlite'));
    events = [];
    now = T;
    keys = new KeyRing(store.gatewayKeys, () => now);
    usage = new UsageService({
      repo: store.usage,
      keys,
      now: () => now,
      emit: (e) => events.push(e),
    });
  });
  afterEach(() => {
    usage.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function spend(tokens: number): void {
    usage.record(
      { status: 200, errorClass: null, latencyMs: 1, ttfbMs: 1 },
      {
        at: now,
        provider: 'p',
        connection: 'p-1',
        model: 'm',
        combo: '',
        keyName: 'ci',
        session: '',
        inputTokens: tokens,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        error: false,
        costUsd: null,
        estimated: false,
      },
    );
  }
  const warnings = () => events.filter((e) => e.type === 'budget.threshold');

  it('a limit raised after the warning and crossed again in the same day does not warn twice', () => {
    const { record } = keys.create({ name: 'ci', limits: { tokensPerDay: 100 } });
    spend(85);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ key: 'ci', limit: 'tokensPerDay', used: 85, max: 100 });
    // Raised to 200: back under 80 %; then over 80 % of the new limit in the same window.
    keys.update(record.id, { limits: { tokensPerDay: 200 } });
    spend(85);
    expect(warnings()).toHaveLength(1);
    // The next day is a new window: it warns again.
    now = T + 86_400_000;
    spend(170);
    expect(warnings()).toHaveLength(2);
  });
});
