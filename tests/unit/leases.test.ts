import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/main/engine/config/catalog';
import type { Logger } from '../../src/main/engine/logger';
import { answerLeaseRequest } from '../../src/main/engine/proxy/session-leases';
import {
  apply,
  chooseConnection,
  clampTtl,
  current,
  DEFAULT_TTL_MS,
  decideCapacity,
  fence,
  hashOwner,
  MAX_TTL_MS,
  MIN_TTL_MS,
  nextGeneration,
  OWNER_TOKEN_PATTERN,
  ownerTokenFrom,
  planManaged,
  retryAfterSeconds,
  type Slot,
} from '../../src/main/engine/resilience/leases/lease';
import {
  type LeaseReply,
  LeaseService,
  type LeaseSkip,
} from '../../src/main/engine/resilience/leases/service';
import { noTargetAnswer } from '../../src/main/engine/routing/no-target';
import type { Candidate } from '../../src/main/engine/routing/resolve';
import { openStore, type Store } from '../../src/main/engine/store';
import type { Lease } from '../../src/main/engine/store/state-records';
import type { EngineEvent, GatewayApiKeyConfig } from '../../src/shared/contract';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function lease(over: Partial<Lease> = {}): Lease {
  return {
    id: 1,
    ownerHash: 'h',
    keyName: 'agent',
    connection: 'c1',
    generation: 1,
    acquiredAt: 0,
    expiresAt: 10_000,
    status: { name: 'ACTIVE' },
    ...over,
  };
}

describe('TTL default 120 s, clamped 1 s – 30 min', () => {
  it('defaults and clamps', () => {
    expect(clampTtl(undefined)).toBe(DEFAULT_TTL_MS);
    expect(DEFAULT_TTL_MS).toBe(120_000);
    expect(clampTtl(1)).toBe(1_000);
    expect(clampTtl(10 * 3_600_000)).toBe(30 * 60_000);
    expect(clampTtl(5_000)).toBe(5_000);
    expect(clampTtl(Number.NaN)).toBe(DEFAULT_TTL_MS);
  });

  it('any number lands inside the range', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: false }), (ms) => {
        const t = clampTtl(ms);
        return t >= MIN_TTL_MS && t <= MAX_TTL_MS;
      }),
    );
  });
});

describe('Retry-After from the earliest relevant expiry, bounded 1–300 s', () => {
  it('rounds up and bounds', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(-5)).toBe(1);
    expect(retryAfterSeconds(1_001)).toBe(2);
    expect(retryAfterSeconds(120_000)).toBe(120);
    expect(retryAfterSeconds(3_600_000)).toBe(300);
  });

  it('is always a whole number of seconds in 1–300 and never shortens a wait below the expiry', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (ms) => {
        const s = retryAfterSeconds(ms);
        return (
          Number.isInteger(s) &&
          s >= 1 &&
          s <= 300 &&
          (ms > 300_000 || s * 1000 >= Math.min(ms, 300_000))
        );
      }),
    );
  });
});

describe('owner token: bwl_ + 43 base64url characters; only its SHA-256 is stored', () => {
  it('has the documented shape', () => {
    const token = ownerTokenFrom(Buffer.alloc(32, 7));
    expect(token).toMatch(OWNER_TOKEN_PATTERN);
    expect(token).toHaveLength(47);
    expect(hashOwner(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(() => ownerTokenFrom(Buffer.alloc(16))).toThrow();
  });
});

describe('states ACTIVE, RELEASED, EXPIRED, INVALIDATED with an end reason', () => {
  it('expires lazily: a read at or after expiresAt sees EXPIRED', () => {
    const l = lease({ expiresAt: 1_000 });
    expect(current(l, 999).status.name).toBe('ACTIVE');
    expect(current(l, 1_000).status).toEqual({
      name: 'EXPIRED',
      endedAt: 1_000,
      reason: 'ttl_elapsed',
    });
  });

  it('renew keeps the generation and extends from now with a clamped TTL', () => {
    const t = apply(lease(), { type: 'renew', ttlMs: 10 * 3_600_000 }, 5_000);
    expect(t).toMatchObject({ ok: true, lease: { generation: 1, expiresAt: 5_000 + MAX_TTL_MS } });
  });

  it('release, invalidate and move', () => {
    expect(apply(lease(), { type: 'release', reason: 'released' }, 5).ok && true).toBe(true);
    const r = apply(lease(), { type: 'release', reason: 'released' }, 5);
    expect(r.ok && r.lease.status).toEqual({ name: 'RELEASED', endedAt: 5, reason: 'released' });
    const i = apply(lease(), { type: 'invalidate', reason: 'superseded' }, 6);
    expect(i.ok && i.lease.status).toEqual({
      name: 'INVALIDATED',
      endedAt: 6,
      reason: 'superseded',
    });
    const m = apply(lease(), { type: 'move', connection: 'c2' }, 7);
    expect(m.ok && [m.lease.connection, m.lease.generation]).toEqual(['c2', 1]);
  });

  it('an ended lease accepts no command', () => {
    for (const cmd of [
      { type: 'renew', ttlMs: 1000 },
      { type: 'release', reason: 'released' },
      { type: 'move', connection: 'c2' },
    ] as const) {
      expect(apply(lease({ expiresAt: 10 }), cmd, 10)).toMatchObject({
        ok: false,
        code: 'LEASE_NOT_ACTIVE',
      });
    }
  });
});

describe('generation fence: only the newest ACTIVE generation of the owner under its key passes', () => {
  it('admits the current generation', () => {
    expect(fence(lease({ generation: 3 }), 3, 0).kind).toBe('admit');
  });
  it('refuses stale, unknown and ended generations, and unknown owners', () => {
    expect(fence(lease({ generation: 3 }), 2, 0)).toMatchObject({
      kind: 'refuse',
      code: 'LEASE_GENERATION_STALE',
    });
    expect(fence(lease({ generation: 3 }), 4, 0)).toMatchObject({
      code: 'LEASE_GENERATION_UNKNOWN',
    });
    expect(fence(lease({ generation: 3, expiresAt: 5 }), 3, 5)).toMatchObject({
      code: 'LEASE_NOT_ACTIVE',
    });
    expect(fence(null, 1, 0)).toMatchObject({ code: 'LEASE_UNKNOWN_OWNER' });
  });
  it('generation = previous maximum + 1', () => {
    expect(nextGeneration(null)).toBe(1);
    expect(nextGeneration(7)).toBe(8);
  });
});

const slot = (
  connection: string,
  eligible: boolean,
  heldUntil: number | null = null,
): Slot<string> => ({ item: connection, connection, eligible, heldUntil });

describe('capacity: eligible candidates exist but every free one is held → WAITING_FOR_CAPACITY', () => {
  it('skips held options and keeps free ones', () => {
    const d = decideCapacity([slot('a', true, 50), slot('b', true)], 0);
    expect(d).toMatchObject({ kind: 'route' });
    expect(d.kind === 'route' && d.use.map((s) => s.connection)).toEqual(['b']);
  });
  it('waits for the earliest expiry among the eligible held ones', () => {
    expect(decideCapacity([slot('a', true, 90_000), slot('b', true, 30_000)], 10_000)).toEqual({
      kind: 'wait',
      retryAfterMs: 20_000,
    });
  });
  it('a free option that is merely unhealthy does not hide a lease conflict', () => {
    expect(decideCapacity([slot('a', true, 5_000), slot('b', false)], 0)).toMatchObject({
      kind: 'wait',
    });
  });
  it('no eligible option at all is not a lease conflict', () => {
    expect(decideCapacity([slot('a', false, 5_000), slot('b', false)], 0).kind).toBe('route');
    expect(decideCapacity([], 0)).toEqual({ kind: 'route', use: [], held: [] });
  });
  it('a managed request stays on its eligible connection, else may move to a free eligible one', () => {
    expect(planManaged([slot('own', true)], [slot('b', true)], 0)).toMatchObject({
      use: ['own'],
      moving: false,
    });
    expect(
      planManaged([slot('own', false)], [slot('b', true, 9), slot('c', true)], 0),
    ).toMatchObject({
      use: ['own', 'c'],
      moving: true,
    });
    expect(planManaged([slot('own', false)], [slot('b', true, 9_000)], 0)).toEqual({
      kind: 'wait',
      retryAfterMs: 9_000,
    });
  });
  it('acquire prefers a free eligible connection, the preferred one first', () => {
    expect(chooseConnection([slot('a', false), slot('b', true)], null, 0)).toEqual({
      kind: 'grant',
      connection: 'b',
    });
    expect(chooseConnection([slot('a', true), slot('b', true)], 'b', 0)).toEqual({
      kind: 'grant',
      connection: 'b',
    });
    expect(chooseConnection([slot('a', false, 4_000)], null, 0)).toEqual({
      kind: 'wait',
      retryAfterMs: 4_000,
    });
    expect(chooseConnection([], null, 0)).toEqual({ kind: 'none' });
  });
  it('no candidates left and no lease conflict: §8 answers', () => {
    const noCandidatesLeft = (model: string, skipped: LeaseSkip[]) =>
      noTargetAnswer(model, skipped, skipped.length, 0);
    expect(noCandidatesLeft('m', [])).toMatchObject({ status: 404, code: 'no_executable_targets' });
    expect(
      noCandidatesLeft('m', [
        { target: 'p/m@a', reason: 'unavailable', retryAfterMs: 500, detail: '' },
      ]),
    ).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
  });
});

// ---------------------------------------------------------------------------- with SQLite

const CONNECTIONS = ['c1', 'c2', 'c3'];

function catalog(connections: readonly string[] = CONNECTIONS): Catalog {
  return new Catalog(
    [
      {
        id: 'p',
        format: 'openai',
        baseUrl: 'http://127.0.0.1:9',
        authClass: 'api_key',
        models: ['m'],
        timeouts: {},
        enabled: true,
        connections: connections.map((id) => ({
          id,
          provider: 'p',
          apiKey: 'k',
          apiKeyEnv: null,
          maxConcurrent: null,
          enabled: true,
        })),
      },
    ],
    [],
    {},
  );
}

const KEYS: GatewayApiKeyConfig[] = [
  { name: 'a', key: 'ka', scopes: ['lease:exclusive'], allowedConnections: ['c1', 'c2'] },
  { name: 'b', key: 'kb', scopes: ['lease:exclusive'], allowedConnections: ['c1'] },
  { name: 'c', key: 'kc', scopes: ['lease:exclusive'], allowedConnections: ['c1', 'c2', 'c3'] },
  { name: 'plain', key: 'kp' },
];
const key = (name: string) => KEYS.find((k) => k.name === name)!;

let dir: string;
let store: Store;
let events: EngineEvent[];
let cooling: Set<string>;

function service(s: Store): LeaseService {
  const cat = catalog();
  return new LeaseService({
    repo: s.leases,
    emit: (e) => events.push(e),
    log: silent,
    keyNamed: (name) => KEYS.find((k) => k.name === name) ?? null,
    catalog: () => cat,
    exclusion: (c) =>
      cooling.has(c.connection.id)
        ? { reason: 'unavailable', retryAfterMs: 1_000, detail: 'cooling' }
        : null,
    connectionEligible: (c) => !cooling.has(c.id),
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bw-leases-'));
  store = openStore(join(dir, 'db.sqlite'));
  events = [];
  cooling = new Set();
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON.
const body = (r: LeaseReply) => r.body as any;

function candidates(): Candidate[] {
  const cat = catalog();
  const p = cat.providers.get('p')!;
  const target = { label: 'p/m', provider: p, model: 'm', pinnedConnection: null };
  return p.connections.map((connection) => ({ target, connection }));
}

describe('POST /api/v1/session-leases actions (service level, real SQLite)', () => {
  it('acquire answers owner, generation, connection, state, expiresAt; only the hash is stored', () => {
    const svc = service(store);
    const r = svc.handle(key('a'), { action: 'acquire', ttlMs: 60_000 }, 1_000);
    expect(r.status).toBe(200);
    expect(body(r)).toEqual({
      owner: expect.stringMatching(OWNER_TOKEN_PATTERN),
      generation: 1,
      connection: 'c1',
      state: 'ACTIVE',
      expiresAt: 61_000,
    });
    const dump = JSON.stringify(store.db.prepare('SELECT * FROM session_leases').all());
    expect(dump).not.toContain(body(r).owner);
    expect(dump).toContain(hashOwner(body(r).owner));
    expect(events.map((e) => e.type)).toEqual(['lease.acquired']);
  });

  it('a key without the scope gets 403 with a clear message', () => {
    const r = service(store).handle(key('plain'), { action: 'acquire' }, 0);
    expect(r.status).toBe(403);
    expect(body(r).error.code).toBe('lease_scope_required');
    expect(body(r).error.message).toContain('lease:exclusive');
  });

  it('renew keeps the generation, release ends it, status reports it; owner only on acquire', () => {
    const svc = service(store);
    const { owner } = body(svc.handle(key('a'), { action: 'acquire' }, 0));
    const renewed = svc.handle(
      key('a'),
      { action: 'renew', owner, generation: 1, ttlMs: 5_000 },
      100,
    );
    expect(body(renewed)).toEqual({
      generation: 1,
      connection: 'c1',
      state: 'ACTIVE',
      expiresAt: 5_100,
    });
    const released = svc.handle(key('a'), { action: 'release', owner, generation: 1 }, 200);
    expect(body(released)).toMatchObject({ state: 'RELEASED', endReason: 'released' });
    expect(body(released).owner).toBeUndefined();
    const status = svc.handle(key('a'), { action: 'status', owner }, 300);
    expect(body(status)).toMatchObject({ generation: 1, state: 'RELEASED' });
    expect(events.map((e) => e.type)).toEqual(['lease.acquired', 'lease.acquired', 'lease.ended']);
  });

  it('re-acquiring with the same owner raises the generation and fences the old one off', () => {
    const svc = service(store);
    const { owner } = body(svc.handle(key('a'), { action: 'acquire' }, 0));
    const again = body(svc.handle(key('a'), { action: 'acquire', owner }, 10));
    expect(again).toMatchObject({ owner, generation: 2, connection: 'c1', state: 'ACTIVE' });
    const stale = svc.handle(key('a'), { action: 'renew', owner, generation: 1 }, 20);
    expect(stale.status).toBe(409);
    expect(body(stale).error.code).toBe('LEASE_GENERATION_STALE');
    // The owner is bound to its key: another key does not know it.
    expect(svc.handle(key('c'), { action: 'status', owner }, 20).status).toBe(404);
  });

  it("a contended connection answers 429 LEASE_CAPACITY_UNAVAILABLE with the winner's expiry", () => {
    const svc = service(store);
    svc.handle(key('a'), { action: 'acquire', ttlMs: 90_000 }, 0);
    const lost = svc.handle(key('b'), { action: 'acquire' }, 30_000);
    expect(lost.status).toBe(429);
    expect(lost.headers).toEqual({ 'retry-after': '60' });
    expect(body(lost).error).toMatchObject({
      code: 'LEASE_CAPACITY_UNAVAILABLE',
      state: 'WAITING_FOR_CAPACITY',
      retryAfterMs: 60_000,
    });
  });

  it('expiry is lazy: the next read promotes it and emits lease.ended once', () => {
    const svc = service(store);
    svc.handle(key('a'), { action: 'acquire', ttlMs: 1_000 }, 0);
    expect(svc.views(999)).toHaveLength(1);
    expect(svc.views(1_000)).toEqual([]);
    expect(svc.views(2_000)).toEqual([]);
    const ended = events.filter((e) => e.type === 'lease.ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      lease: { state: 'EXPIRED' },
      cause: expect.stringContaining('expired'),
    });
    // Capacity is free again.
    expect(svc.handle(key('b'), { action: 'acquire' }, 2_000).status).toBe(200);
  });

  it('rejects malformed bodies clearly', async () => {
    const svc = service(store);
    expect(body(await answerLeaseRequest(svc, key('a'), { action: 'steal' }, 0)).error.code).toBe(
      'invalid_action',
    );
    expect(body(await answerLeaseRequest(svc, key('a'), { action: 'renew' }, 0)).error.code).toBe(
      'missing_owner',
    );
    expect(
      body(await answerLeaseRequest(svc, key('a'), { action: 'acquire', ttlMs: 'x' }, 0)).error
        .code,
    ).toBe('invalid_ttl');
    expect(body(await answerLeaseRequest(svc, key('a'), [], 0)).error.code).toBe('invalid_body');
  });

  it('routing plan: others skip a leased connection; the holder goes to its own', () => {
    const svc = service(store);
    const { owner } = body(svc.handle(key('a'), { action: 'acquire' }, 0));
    const unmanaged = svc.plan(null, candidates(), 10);
    expect('candidates' in unmanaged && unmanaged.candidates.map((c) => c.connection.id)).toEqual([
      'c2',
      'c3',
    ]);
    const f = svc.fence(
      key('a'),
      { 'x-breakwater-lease-owner': owner, 'x-breakwater-lease-generation': '1' },
      10,
    );
    expect(f.ok).toBe(true);
    const managed = f.ok ? f.managed : null;
    const planned = svc.plan(managed, candidates(), 10);
    expect('candidates' in planned && planned.candidates.map((c) => c.connection.id)).toEqual([
      'c1',
    ]);
    // Its own connection cools: it may move to a free allowed one, and does once served there.
    cooling.add('c1');
    const moving = svc.plan(managed, candidates(), 20);
    expect('candidates' in moving && moving.candidates.map((c) => c.connection.id)).toEqual([
      'c1',
      'c2',
    ]);
    svc.served(managed, 'c2', 30);
    expect(svc.views(40)).toEqual([
      { connection: 'c2', generation: 1, state: 'ACTIVE', expiresAt: 120_000 },
    ]);
  });

  it('the unique partial indexes refuse a second ACTIVE lease per connection and per owner', () => {
    const row = (over: Partial<Lease>) => lease({ id: 0, expiresAt: 1e12, ...over });
    store.leases.insert(row({ ownerHash: 'o1', connection: 'c1' }));
    expect(() => store.leases.insert(row({ ownerHash: 'o2', connection: 'c1' }))).toThrow(/UNIQUE/);
    expect(() =>
      store.leases.insert(row({ ownerHash: 'o1', connection: 'c2', generation: 2 })),
    ).toThrow(/UNIQUE/);
    // Ended leases do not count.
    store.leases.insert(
      row({
        ownerHash: 'o3',
        connection: 'c1',
        status: { name: 'RELEASED', endedAt: 1, reason: 'released' },
      }),
    );
  });

  it('restart keeps active leases (they live in SQLite)', () => {
    service(store).handle(key('a'), { action: 'acquire' }, 0);
    store.close();
    store = openStore(join(dir, 'db.sqlite'));
    expect(service(store).views(1)).toEqual([
      { connection: 'c1', generation: 1, state: 'ACTIVE', expiresAt: 120_000 },
    ]);
  });

  it('a lease whose connection was removed ends at the next reconcile (catalog reload)', () => {
    let cat = catalog();
    const svc = new LeaseService({
      repo: store.leases,
      emit: (e) => events.push(e),
      log: silent,
      keyNamed: (name) => KEYS.find((k) => k.name === name) ?? null,
      catalog: () => cat,
      exclusion: () => null,
      connectionEligible: () => true,
    });
    svc.handle(key('a'), { action: 'acquire' }, 0);
    svc.reconcile(5);
    expect(svc.views(5)).toHaveLength(1);
    cat = catalog(['c2', 'c3']);
    svc.reconcile(10);
    expect(svc.views(10)).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'lease.ended',
      lease: { connection: 'c1', state: 'INVALIDATED' },
      cause: 'its connection was removed',
    });
  });

  it('a key that lost the scope has its leases invalidated at start', () => {
    const svc = service(store);
    svc.handle(key('b'), { action: 'acquire' }, 0);
    const cat = catalog();
    const restarted = new LeaseService({
      repo: store.leases,
      emit: (e) => events.push(e),
      log: silent,
      keyNamed: (name) => (name === 'b' ? null : key(name)),
      catalog: () => cat,
      exclusion: () => null,
      connectionEligible: () => true,
    });
    restarted.reconcile(10);
    expect(restarted.views(10)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'lease.ended', lease: { state: 'INVALIDATED' } });
  });
});

// ---------------------------------------------------------------------------- properties

type Op =
  | { kind: 'acquire'; key: string; owner: number | null; ttlMs: number }
  | { kind: 'renew'; owner: number; staleBy: number; ttlMs: number }
  | { kind: 'release'; owner: number }
  | { kind: 'operator'; connection: string }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('acquire' as const),
    key: fc.constantFrom('a', 'b', 'c'),
    owner: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
    ttlMs: fc.integer({ min: 0, max: 40 * 60_000 }),
  }),
  fc.record({
    kind: fc.constant('renew' as const),
    owner: fc.integer({ min: 0, max: 4 }),
    staleBy: fc.integer({ min: 0, max: 1 }),
    ttlMs: fc.integer({ min: 0, max: 5_000 }),
  }),
  fc.record({ kind: fc.constant('release' as const), owner: fc.integer({ min: 0, max: 4 }) }),
  fc.record({
    kind: fc.constant('operator' as const),
    connection: fc.constantFrom(...CONNECTIONS),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 200_000 }) }),
);

describe('property: any interleaving of acquire / renew / release / expire', () => {
  it('never leaves two active leases on one connection or for one owner; generations strictly increase per owner', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        store.db.exec('DELETE FROM session_leases');
        events = [];
        const svc = service(store);
        let now = 0;
        // Owners a test client knows: token, key, last generation issued.
        const owners: { token: string; key: string; generations: number[] }[] = [];
        for (const op of ops) {
          if (op.kind === 'advance') now += op.ms;
          else if (op.kind === 'acquire') {
            const known =
              op.owner !== null ? owners[op.owner % Math.max(1, owners.length)] : undefined;
            const k = known?.key ?? op.key;
            const r = svc.handle(
              key(k),
              {
                action: 'acquire',
                ttlMs: op.ttlMs || undefined,
                ...(known ? { owner: known.token } : {}),
              },
              now,
            );
            if (r.status === 200) {
              const b = body(r);
              if (known) known.generations.push(b.generation);
              else owners.push({ token: b.owner, key: k, generations: [b.generation] });
            } else {
              expect([429, 404]).toContain(r.status);
            }
          } else if (op.kind === 'renew' || op.kind === 'release') {
            const o = owners[op.owner % Math.max(1, owners.length)];
            if (!o) continue;
            const last = o.generations.at(-1)!;
            const generation = op.kind === 'renew' ? Math.max(1, last - op.staleBy) : last;
            const r = svc.handle(
              key(o.key),
              {
                action: op.kind,
                owner: o.token,
                generation,
                ...(op.kind === 'renew' ? { ttlMs: op.ttlMs || undefined } : {}),
              },
              now,
            );
            if (generation < last) expect(r.status).toBe(409);
            if (r.status === 200) expect(body(r).generation).toBe(last);
          } else {
            svc.releaseConnection(op.connection, now);
          }
          // Invariants, read straight from SQLite after lazy expiry.
          svc.views(now);
          const rows = store.db
            .prepare("SELECT owner_hash, connection_id FROM session_leases WHERE state = 'ACTIVE'")
            .all() as { owner_hash: string; connection_id: string }[];
          expect(new Set(rows.map((r) => r.connection_id)).size).toBe(rows.length);
          expect(new Set(rows.map((r) => r.owner_hash)).size).toBe(rows.length);
          const expired = store.db
            .prepare(
              "SELECT COUNT(*) AS n FROM session_leases WHERE state = 'ACTIVE' AND expires_at <= ?",
            )
            .get(now) as { n: number };
          expect(expired.n).toBe(0);
        }
        for (const o of owners) {
          for (let i = 1; i < o.generations.length; i++) {
            expect(o.generations[i]!).toBeGreaterThan(o.generations[i - 1]!);
          }
        }
        // Every ended lease was announced exactly once.
        const ended = events.filter((e) => e.type === 'lease.ended').length;
        const endedRows = store.db
          .prepare("SELECT COUNT(*) AS n FROM session_leases WHERE state != 'ACTIVE'")
          .get() as { n: number };
        expect(ended).toBe(endedRows.n);
      }),
      { numRuns: 150 },
    );
  });
});
