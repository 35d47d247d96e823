import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMaps } from '../../src/main/engine/bounded-map';
import {
  SESSION_HEADERS,
  SessionAffinity,
  sessionIdOf,
} from '../../src/main/engine/resilience/affinity';
import { findSetting } from '../../src/main/engine/settings/registry';

const T0 = 1_700_000_000_000;
const TTL = 30 * 60_000;
const ON = { ttlMs: () => TTL };
const OFF = { ttlMs: () => 0 };

describe('§9 session id from X-Session-Id, x-codex-session-id, x-breakwater-session, x-claude-code-session-id (Claude Code) and session-id (Codex CLI)', () => {
  it.each([
    'x-session-id',
    'x-codex-session-id',
    'x-breakwater-session',
    'x-claude-code-session-id',
    'session-id',
    'session_id',
  ])('reads %s', (header) => {
    expect(sessionIdOf({ [header]: 'abc-123' })).toBe('abc-123');
  });

  it('covers every header the spec names (Node lower-cases header names)', () => {
    for (const h of [
      'X-Session-Id',
      'x-codex-session-id',
      'x-breakwater-session',
      'x-claude-code-session-id',
      'session-id',
    ]) {
      expect(SESSION_HEADERS).toContain(h.toLowerCase());
    }
  });

  it('no session header, or only blank ones: no session', () => {
    expect(sessionIdOf({})).toBeNull();
    expect(sessionIdOf({ 'x-request-id': 'r1', authorization: 'Bearer k' })).toBeNull();
    expect(sessionIdOf({ 'x-session-id': '   ', 'session-id': '' })).toBeNull();
  });

  it('ours first: x-breakwater-session wins over the agent headers; a blank one is skipped', () => {
    expect(
      sessionIdOf({
        'session-id': 'codex',
        'x-claude-code-session-id': 'claude',
        'x-breakwater-session': 'ours',
      }),
    ).toBe('ours');
    expect(sessionIdOf({ 'x-breakwater-session': ' ', 'x-session-id': 'next' })).toBe('next');
  });

  it('trims, takes the first of repeated values, and caps the id at 256 characters', () => {
    expect(sessionIdOf({ 'x-session-id': '  s1  ' })).toBe('s1');
    expect(sessionIdOf({ 'set-cookie': ['x'], 'x-session-id': 's1' })).toBe('s1');
    const headers = { 'x-session-id': ['first', 'second'] } as unknown as Record<string, string>;
    expect(sessionIdOf(headers)).toBe('first');
    expect(sessionIdOf({ 'x-session-id': 'a'.repeat(1_000) })).toBe('a'.repeat(256));
  });
});

describe('§9 one client session pinned to one connection, any provider, with TTL sessionAffinityTtlMs (default 30 min)', () => {
  it('the default TTL is 30 min and 0 is allowed', () => {
    expect(findSetting('sessionAffinityTtlMs')).toMatchObject({ defaultValue: TTL, min: 0 });
  });

  it('a pinned session returns its connection until the TTL runs out', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'openai/key-1', T0);
    expect(a.pinned('s1', T0)).toBe('openai/key-1');
    expect(a.pinned('s1', T0 + TTL - 1)).toBe('openai/key-1');
    expect(a.pinned('s1', T0 + TTL)).toBeNull();
    expect(a.pinned('s1', T0 + TTL - 1)).toBeNull();
  });

  it('sessions are independent of each other', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'c1', T0);
    a.pin('s2', 'c2', T0);
    expect(a.pinned('s1', T0)).toBe('c1');
    expect(a.pinned('s2', T0)).toBe('c2');
    expect(a.pinned('s3', T0)).toBeNull();
  });
});

describe('§9 TTL 0 disables affinity', () => {
  it('pin does nothing and a stored pin is not returned', () => {
    const a = new SessionAffinity([{ session: 's1', connection: 'c1', expiresAt: T0 + TTL }], OFF);
    a.pin('s2', 'c2', T0);
    expect(a.pinned('s1', T0)).toBeNull();
    expect(a.pinned('s2', T0)).toBeNull();
    expect(a.takeDirty().size).toBe(0);
  });

  it('property: with TTL 0 no session is ever pinned', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            session: fc.constantFrom('a', 'b', 'c'),
            connection: fc.constantFrom('c1', 'c2'),
            dt: fc.nat(10_000),
            pin: fc.boolean(),
          }),
        ),
        (ops) => {
          const a = new SessionAffinity([], OFF);
          let now = T0;
          for (const op of ops) {
            now += op.dt;
            if (op.pin) a.pin(op.session, op.connection, now);
            expect(a.pinned(op.session, now)).toBeNull();
          }
          expect(a.views(now)).toEqual([]);
          expect(a.takeDirty().size).toBe(0);
        },
      ),
    );
  });
});

describe('§9 the TTL is refreshed on use', () => {
  it('pinning again (each served request) moves the expiry to now + TTL', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'c1', T0);
    a.pin('s1', 'c1', T0 + TTL - 1_000);
    expect(a.pinned('s1', T0 + TTL + 60_000)).toBe('c1');
    expect(a.views(T0 + TTL)).toEqual([
      { session: 's1', connection: 'c1', expiresAt: T0 + 2 * TTL - 1_000 },
    ]);
    expect(a.pinned('s1', T0 + 2 * TTL - 1_000)).toBeNull();
  });
});

describe('§9 if the pinned connection becomes ineligible, fail over and overwrite the pin with the new connection', () => {
  it('the new connection replaces the old one', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'anthropic/acct-1', T0);
    a.pin('s1', 'openai/key-2', T0 + 5);
    expect(a.pinned('s1', T0 + 10)).toBe('openai/key-2');
    expect(a.views(T0 + 10)).toHaveLength(1);
  });

  it('pins to a connection that no longer exists are dropped', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'gone', T0);
    a.pin('s2', 'gone', T0);
    a.pin('s3', 'kept', T0);
    a.takeDirty();
    a.forgetConnection('gone', T0);
    expect(a.pinned('s1', T0)).toBeNull();
    expect(a.pinned('s3', T0)).toBe('kept');
    expect(a.takeDirty()).toEqual(
      new Map([
        ['s1', null],
        ['s2', null],
      ]),
    );
  });
});

describe('§9 persisted: pins restored at start, changes collected for a batched write', () => {
  it('restored pins are served and are not dirty', () => {
    const a = new SessionAffinity(
      [
        { session: 's1', connection: 'c1', expiresAt: T0 + 1_000 },
        { session: 's2', connection: 'c2', expiresAt: T0 - 1 },
      ],
      ON,
    );
    expect(a.takeDirty().size).toBe(0);
    expect(a.pinned('s1', T0)).toBe('c1');
    expect(a.views(T0)).toEqual([{ session: 's1', connection: 'c1', expiresAt: T0 + 1_000 }]);
  });

  it('every pin is dirty until taken; the last write per session wins; taking clears', () => {
    const a = new SessionAffinity([], ON);
    a.pin('s1', 'c1', T0);
    a.pin('s1', 'c2', T0 + 1);
    a.pin('s2', 'c1', T0 + 2);
    expect(a.takeDirty()).toEqual(
      new Map([
        ['s1', { session: 's1', connection: 'c2', expiresAt: T0 + 1 + TTL }],
        ['s2', { session: 's2', connection: 'c1', expiresAt: T0 + 2 + TTL }],
      ]),
    );
    expect(a.takeDirty().size).toBe(0);
    expect(a.dirty.size).toBe(0);
  });
});

describe('An expired pin is dropped when it is read, or by the sweep, and the deletion recorded', () => {
  it('reading an expired pin deletes it and records the deletion for the store', () => {
    const a = new SessionAffinity([{ session: 's1', connection: 'c1', expiresAt: T0 }], ON);
    expect(a.views(T0)).toEqual([]);
    expect(a.dirty.size).toBe(0);
    expect(a.pinned('s1', T0)).toBeNull();
    expect(a.takeDirty()).toEqual(new Map([['s1', null]]));
  });

  it('a session that never returns is swept at its TTL, and past the cap the least recent goes', () => {
    let now = T0;
    const maps = new BoundedMaps(() => now);
    const a = new SessionAffinity([], { ttlMs: () => TTL, maps, maxEntries: 2 });
    a.pin('s1', 'c1', T0);
    a.pin('s2', 'c1', T0 + 1);
    a.pin('s1', 'c1', T0 + 2);
    a.pin('s3', 'c1', T0 + 3);
    a.takeDirty();
    expect(a.views(T0 + 3).map((v) => v.session)).toEqual(['s1', 's3']);
    expect(maps.stats()).toEqual([
      { name: 'session_pins', size: 2, capacity: 2, expired: 0, evicted: 1 },
    ]);
    now = T0 + 2 + TTL;
    maps.sweep();
    expect(a.takeDirty()).toEqual(new Map([['s1', null]]));
    expect(a.views(now).map((v) => v.session)).toEqual(['s3']);
  });
});

describe('§9 properties of session affinity', () => {
  it('a pin is returned before its expiry and never after it (model check over pins, re-pins and reads)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(
          fc.record({
            session: fc.constantFrom('a', 'b', 'c'),
            connection: fc.constantFrom('c1', 'c2', 'c3'),
            dt: fc.nat(60_000),
            pin: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        (ttl, ops) => {
          const a = new SessionAffinity([], { ttlMs: () => ttl });
          const model = new Map<string, { connection: string; expiresAt: number }>();
          let now = T0;
          for (const op of ops) {
            now += op.dt;
            if (op.pin) {
              a.pin(op.session, op.connection, now);
              model.set(op.session, { connection: op.connection, expiresAt: now + ttl });
            }
            const m = model.get(op.session);
            const expected = m && now < m.expiresAt ? m.connection : null;
            expect(a.pinned(op.session, now)).toBe(expected);
            for (const v of a.views(now)) expect(v.expiresAt).toBeGreaterThan(now);
          }
        },
      ),
    );
  });
});
