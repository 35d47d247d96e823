import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FairShare,
  type ShareOutcome,
  type ShareRequest,
  type ShareTicket,
} from '../../src/main/engine/routing/fair-share';

function req(key: string, over: Partial<ShareRequest> = {}): ShareRequest {
  return {
    combo: 'c',
    key,
    cost: 1,
    quantum: 1,
    capacity: 1,
    signal: new AbortController().signal,
    ...over,
  };
}

function ticketOf(got: ShareTicket | Promise<ShareOutcome>): ShareTicket {
  if (got instanceof Promise) throw new Error('expected a ticket at once');
  return got;
}

/** Queues requests and records the order their tickets are granted in. */
function queue(
  share: FairShare,
  keys: string[],
  over: (key: string) => Partial<ShareRequest> = () => ({}),
) {
  const granted: string[] = [];
  const tickets: ShareTicket[] = [];
  for (const key of keys) {
    const got = share.acquire(req(key, over(key)));
    if (!(got instanceof Promise)) throw new Error('expected a wait');
    void got.then((o) => {
      if (o.kind === 'cancelled') return;
      granted.push(key);
      tickets.push(o.ticket);
    });
  }
  return { granted, tickets };
}

const tick = () => new Promise((r) => setImmediate(r));

afterEach(() => vi.useRealTimers());

describe('fair share between keys (deficit round robin)', () => {
  it('admits at once while there is room; a ticket released twice frees one place', async () => {
    const share = new FairShare(
      () => 0,
      () => 60_000,
    );
    const a = ticketOf(share.acquire(req('a', { capacity: 2 })));
    ticketOf(share.acquire(req('a', { capacity: 2 })));
    expect(share.acquire(req('b', { capacity: 2 }))).toBeInstanceOf(Promise);
    a.release();
    a.release();
    await tick();
    expect(share.state('c')).toEqual({ active: 2, waiting: 0 });
  });

  it('by requests: a flooding key and a light one alternate', async () => {
    const share = new FairShare(
      () => 0,
      () => 60_000,
    );
    const first = ticketOf(share.acquire(req('a')));
    const { granted, tickets } = queue(share, ['a', 'a', 'a', 'a', 'b', 'b']);
    first.release();
    for (let i = 0; i < 6; i++) {
      await tick();
      tickets[i]!.release();
    }
    await tick();
    expect(granted).toEqual(['a', 'b', 'a', 'b', 'a', 'a']);
    expect(share.state('c')).toEqual({ active: 0, waiting: 0 });
  });

  it('by tokens: big requests get fewer turns than small ones', async () => {
    const share = new FairShare(
      () => 0,
      () => 60_000,
    );
    const first = ticketOf(share.acquire(req('big')));
    const { granted, tickets } = queue(
      share,
      ['big', 'big', 'small', 'small', 'small', 'small'],
      (key) => ({
        cost: key === 'big' ? 16_000 : 4_000,
        quantum: 8_192,
      }),
    );
    first.release();
    for (let i = 0; i < 6; i++) {
      await tick();
      tickets[i]!.release();
    }
    await tick();
    // small sends two per quantum while big saves up two quanta for one.
    expect(granted.slice(0, 3)).toEqual(['small', 'small', 'big']);
    expect(granted).toHaveLength(6);
  });

  it('a wait longer than maxWaitMs goes ahead anyway (fail-open)', async () => {
    vi.useFakeTimers();
    let now = 0;
    const share = new FairShare(
      () => now,
      () => 500,
    );
    ticketOf(share.acquire(req('a')));
    const waiting = share.acquire(req('b')) as Promise<ShareOutcome>;
    now = 500;
    vi.advanceTimersByTime(500);
    const outcome = await waiting;
    expect(outcome).toMatchObject({ kind: 'overflow', waitedMs: 500 });
    expect(share.state('c')).toEqual({ active: 2, waiting: 0 });
  });

  it('a client that goes away leaves the line', async () => {
    const share = new FairShare(
      () => 0,
      () => 60_000,
    );
    const first = ticketOf(share.acquire(req('a')));
    const abort = new AbortController();
    const waiting = share.acquire(req('b', { signal: abort.signal })) as Promise<ShareOutcome>;
    abort.abort();
    expect(await waiting).toEqual({ kind: 'cancelled' });
    first.release();
    expect(share.state('c')).toEqual({ active: 0, waiting: 0 });
  });
});
