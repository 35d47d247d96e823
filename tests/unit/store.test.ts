import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/main/engine/store/database';
import type { Db } from '../../src/main/engine/store/db';
import { openStore, type Store } from '../../src/main/engine/store/index';
import {
  LATEST_SCHEMA_VERSION,
  type Migration,
  migrate,
  NewerSchemaError,
} from '../../src/main/engine/store/migrations';
import { createRequestLog, type RequestLog } from '../../src/main/engine/store/request-log';
import type { RequestLogEntry } from '../../src/shared/contract';

const NOW = Date.now();
let dir: string;
let file: string;
const toClose: { close(): unknown }[] = [];

function track<T extends { close(): unknown }>(value: T): T {
  toClose.push(value);
  return value;
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-store-'));
  file = path.join(dir, 'nested', 'breakwater.db');
});

afterEach(() => {
  for (const item of toClose.splice(0).reverse()) {
    try {
      item.close();
    } catch {
      // already closed
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function entry(over: Partial<Omit<RequestLogEntry, 'id'>> = {}): Omit<RequestLogEntry, 'id'> {
  return {
    at: NOW,
    clientFormat: 'openai-chat',
    modelRequested: 'coder',
    target: 'openai/gpt-5',
    provider: 'openai',
    connection: 'openai-1',
    status: 200,
    latencyMs: 120,
    ttfbMs: 40,
    stream: true,
    bytesIn: 100,
    bytesOut: 2000,
    inputTokens: 10,
    outputTokens: 20,
    cachedTokens: null,
    errorClass: null,
    errorMessage: null,
    decision: 'combo coder: openai/gpt-5 served',
    egressIp: null,
    keyName: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    costUsd: null,
    ...over,
  };
}

function tableCount(db: Db): number {
  return db.prepare('SELECT COUNT(*) FROM request_log').pluck().get() as number;
}

describe('openDatabase', () => {
  it('creates the parent directory and sets the pragmas', () => {
    const db = track(openDatabase(file));
    expect(fs.existsSync(file)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
  });

  it('creates the schema of migration 1', () => {
    const db = track(openDatabase(file));
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(
      expect.arrayContaining(['combos', 'connections', 'providers', 'request_log', 'settings']),
    );
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
      .pluck()
      .all();
    expect(indexes).toEqual(
      expect.arrayContaining([
        'connections_provider_id',
        'request_log_at',
        'request_log_connection_at',
      ]),
    );
  });

  it('is idempotent on reopen and keeps the data', () => {
    const store = openStore(file);
    store.settings.set('a', 1);
    store.close();
    const db = track(openDatabase(file));
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(migrate(db)).toEqual([]);
    const again = track(openStore(file));
    expect(again.settings.get('a')).toBe(1);
  });

  it('refuses a database written by a newer Breakwater, with a clear message', () => {
    const raw = new Database(file.replace('nested', ''));
    raw.pragma('user_version = 999');
    raw.close();
    const newer = file.replace('nested', '');
    let error: unknown;
    try {
      openDatabase(newer);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(NewerSchemaError);
    const message = (error as Error).message;
    expect(message).toContain(`The database at ${newer}`);
    expect(message).toContain('newer Breakwater');
    expect(message).toContain(`schema v999; this version knows up to v${LATEST_SCHEMA_VERSION}`);
    expect(message).toContain('--data-dir');
    expect(() => openStore(newer)).toThrow(/written by a newer Breakwater/);
    // The file was not touched (still not in WAL mode) and is not held open.
    const check = new Database(newer);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(check.pragma('user_version', { simple: true })).toBe(999);
    check.close();
  });

  it('runs each migration in its own transaction and stops at a failing one', () => {
    const db = track(new Database(path.join(dir, 'm.db')));
    const list: Migration[] = [
      { version: 1, name: 'one', up: 'CREATE TABLE a (x INTEGER);' },
      { version: 2, name: 'two', up: 'CREATE TABLE b (x INTEGER); CREATE TABLE a (y INTEGER);' },
    ];
    expect(() => migrate(db, list)).toThrow(/already exists/);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(['a']);
    expect(migrate(db, [list[0]!])).toEqual([]);
  });

  it('rejects migrations that are not in increasing order', () => {
    const db = track(new Database(':memory:'));
    expect(() =>
      migrate(db, [
        { version: 2, name: 'b', up: '' },
        { version: 1, name: 'a', up: '' },
      ]),
    ).toThrow(/increasing/);
  });
});

describe('repositories', () => {
  let store: Store;

  beforeEach(() => {
    store = track(openStore(file));
  });

  it('round-trips providers, ordered by position then id, keeping created_at', () => {
    const base = {
      format: 'openai' as const,
      baseUrl: 'https://api.openai.com/v1',
      authClass: 'api_key' as const,
      models: ['gpt-5', 'gpt-5-mini'],
      timeouts: { connectMs: 1000, idleMs: 30_000 },
      enabled: true,
      options: { quotaFamilies: { 'gpt-5': ['gpt-5*'] } },
    };
    store.providers.upsert({ ...base, id: 'zeta', position: 0 });
    store.providers.upsert({
      ...base,
      id: 'alpha',
      position: 1,
      enabled: false,
      timeouts: {},
      options: {},
    });
    store.providers.upsert({ ...base, id: 'beta', position: 0 });
    expect(store.providers.list().map((p) => p.id)).toEqual(['beta', 'zeta', 'alpha']);
    expect(store.providers.get('zeta')).toEqual({ ...base, id: 'zeta', position: 0 });
    expect(store.providers.get('alpha')?.enabled).toBe(false);
    expect(store.providers.get('nope')).toBeUndefined();

    const created = () =>
      store.db.prepare("SELECT created_at FROM providers WHERE id = 'zeta'").pluck().get();
    const before = created();
    vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] });
    try {
      store.providers.upsert({
        ...base,
        id: 'zeta',
        format: 'anthropic',
        models: ['claude'],
        position: 5,
      });
    } finally {
      vi.useRealTimers();
    }
    expect(created()).toBe(before);
    const row = store.db
      .prepare("SELECT created_at, updated_at FROM providers WHERE id = 'zeta'")
      .get() as { created_at: number; updated_at: number };
    expect(row.updated_at).toBeGreaterThan(row.created_at);
    expect(store.providers.get('zeta')).toMatchObject({
      format: 'anthropic',
      models: ['claude'],
      position: 5,
    });
    expect(store.providers.remove('zeta')).toBe(true);
    expect(store.providers.remove('zeta')).toBe(false);
    expect(store.providers.list().map((p) => p.id)).toEqual(['beta', 'alpha']);
  });

  function addProvider(id: string): void {
    store.providers.upsert({
      id,
      format: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      authClass: 'api_key',
      models: ['claude-sonnet-4-5'],
      timeouts: {},
      enabled: true,
      position: 0,
    });
  }

  it('round-trips connections and lists them per provider', () => {
    addProvider('anthropic');
    addProvider('other');
    const a1 = {
      id: 'a-1',
      provider: 'anthropic',
      apiKey: 'sk-secret',
      apiKeyEnv: null,
      maxConcurrent: 2,
      enabled: true,
      position: 1,
      options: { disableCooling: true },
    };
    const a0 = { ...a1, id: 'a-0', apiKey: null, apiKeyEnv: 'ANTHROPIC_API_KEY', position: 0 };
    const o1 = { ...a1, id: 'o-1', provider: 'other', maxConcurrent: null, enabled: false };
    store.connections.upsert(a1);
    store.connections.upsert(a0);
    store.connections.upsert(o1);
    expect(store.connections.get('a-1')).toEqual(a1);
    expect(store.connections.get('o-1')).toEqual(o1);
    expect(store.connections.list('anthropic').map((c) => c.id)).toEqual(['a-0', 'a-1']);
    expect(store.connections.list().map((c) => c.id)).toEqual(['a-0', 'a-1', 'o-1']);
    store.connections.upsert({ ...a1, apiKey: null, apiKeyEnv: 'KEY', maxConcurrent: null });
    expect(store.connections.get('a-1')).toMatchObject({ apiKey: null, apiKeyEnv: 'KEY' });
    expect(store.connections.remove('a-1')).toBe(true);
    expect(store.connections.remove('a-1')).toBe(false);
    expect(store.connections.get('a-1')).toBeUndefined();
  });

  it('deleting a provider cascades to its connections', () => {
    addProvider('anthropic');
    addProvider('other');
    const conn = {
      provider: 'anthropic',
      apiKey: null,
      apiKeyEnv: null,
      maxConcurrent: null,
      enabled: true,
      position: 0,
    };
    store.connections.upsert({ ...conn, id: 'a-1' });
    store.connections.upsert({ ...conn, id: 'a-2' });
    store.connections.upsert({ ...conn, id: 'o-1', provider: 'other' });
    expect(store.providers.remove('anthropic')).toBe(true);
    expect(store.connections.list().map((c) => c.id)).toEqual(['o-1']);
  });

  it('refuses a connection for a missing provider with a clear error', () => {
    expect(() =>
      store.connections.upsert({
        id: 'x-1',
        provider: 'ghost',
        apiKey: null,
        apiKeyEnv: null,
        maxConcurrent: null,
        enabled: true,
        position: 0,
      }),
    ).toThrow('Cannot save connection "x-1": provider "ghost" does not exist');
    expect(store.connections.list()).toEqual([]);
  });

  it('round-trips combos with positions', () => {
    store.combos.upsert({ name: 'coder', strategy: 'priority', targets: ['a/b', 'c/d@c-1'] });
    store.combos.upsert({ name: 'alpha', strategy: 'priority', targets: ['x/y'] });
    store.combos.upsert({ name: 'first', strategy: 'priority', targets: [], position: -1 });
    expect(store.combos.list()).toEqual([
      { name: 'first', strategy: 'priority', targets: [], position: -1 },
      { name: 'coder', strategy: 'priority', targets: ['a/b', 'c/d@c-1'], position: 0 },
      { name: 'alpha', strategy: 'priority', targets: ['x/y'], position: 1 },
    ]);
    // Updating without a position keeps the place.
    store.combos.upsert({ name: 'coder', strategy: 'priority', targets: ['e/f'] });
    expect(store.combos.get('coder')).toEqual({
      name: 'coder',
      strategy: 'priority',
      targets: ['e/f'],
      position: 0,
    });
    store.combos.upsert({ name: 'coder', strategy: 'priority', targets: ['e/f'], position: 9 });
    expect(store.combos.list().map((c) => c.name)).toEqual(['first', 'alpha', 'coder']);
    expect(store.combos.remove('coder')).toBe(true);
    expect(store.combos.remove('coder')).toBe(false);
    expect(store.combos.get('coder')).toBeUndefined();
  });

  it('round-trips settings as JSON', () => {
    const nested = { modelLockout: { enabled: true, ttlMs: 60_000 }, list: [1, 'two', null] };
    store.settings.set('resilience', nested);
    store.settings.set('paused', false);
    store.settings.set('name', 'bw');
    store.settings.set('nothing', null);
    expect(store.settings.get('resilience')).toEqual(nested);
    expect(store.settings.get('paused')).toBe(false);
    expect(store.settings.get('nothing')).toBeNull();
    expect(store.settings.get('missing')).toBeUndefined();
    expect(store.settings.all()).toEqual({
      resilience: nested,
      paused: false,
      name: 'bw',
      nothing: null,
    });
    store.settings.set('paused', true);
    expect(store.settings.get('paused')).toBe(true);
    expect(store.settings.remove('name')).toBe(true);
    expect(store.settings.remove('name')).toBe(false);
    expect(() => store.settings.set('bad', undefined)).toThrow(/no JSON value/);
  });

  it('setMany is all or nothing', () => {
    store.settings.setMany({ a: 1, b: [2] });
    expect(store.settings.all()).toEqual({ a: 1, b: [2] });
    expect(() => store.settings.setMany({ a: 5, c: 3, d: () => 0 })).toThrow();
    expect(store.settings.all()).toEqual({ a: 1, b: [2] });
  });

  it('round-trips model lockouts with when each was set (null for one set before it was kept)', () => {
    addProvider('anthropic');
    store.connections.upsert({
      id: 'a-1',
      provider: 'anthropic',
      apiKey: null,
      apiKeyEnv: null,
      maxConcurrent: null,
      enabled: true,
      position: 0,
      options: {},
    });
    const lock = {
      key: 'anthropic:a-1:m',
      provider: 'anthropic',
      connection: 'a-1',
      model: 'm',
      subject: 'm',
      scope: 'model' as const,
      reason: 'not_found',
      failureCount: 1,
      expiresAt: NOW + 86_400_000,
      lockedAt: NOW,
    };
    const old = { ...lock, key: 'anthropic:a-1:old', model: 'old', subject: 'old', lockedAt: null };
    const gone = { ...lock, key: 'x:gone:m', connection: 'gone' };
    const lockouts = new Map([lock, old, gone].map((l) => [l.key, l] as const));
    store.resilience.save({ breakers: new Map(), health: new Map(), lockouts }, NOW);
    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect(store.resilience.loadLockouts().sort(byKey)).toEqual([old, lock].sort(byKey));
  });

  it('close() is safe to call twice', () => {
    store.close();
    expect(() => store.close()).not.toThrow();
    expect(store.db.open).toBe(false);
  });
});

describe('request log', () => {
  let db: Db;

  beforeEach(() => {
    db = track(openDatabase(file));
  });

  function log(opts: Parameters<typeof createRequestLog>[1] = {}): RequestLog {
    // Huge retention by default so entries with tiny `at` values survive the prune.
    return track(
      createRequestLog(db, { flushIntervalMs: 60_000, retentionDays: 100_000, ...opts }),
    );
  }

  it('append stays in memory until flush but is visible through recent()', () => {
    const rl = log();
    const id = rl.append(entry({ latencyMs: 12.6 }));
    expect(tableCount(db)).toBe(0);
    const [seen] = rl.recent({ limit: 10 });
    expect(seen).toEqual({ ...entry(), id, latencyMs: 13 });
    rl.flush();
    expect(tableCount(db)).toBe(1);
    expect(rl.recent({ limit: 10 })).toEqual([{ ...entry(), id, latencyMs: 13 }]);
    expect(rl.stats()).toEqual({ pending: 0, dropped: 0, flushFailures: 0 });
  });

  it('flushes on its timer', async () => {
    const rl = log({ flushIntervalMs: 10 });
    rl.append(entry());
    expect(tableCount(db)).toBe(0);
    await vi.waitFor(() => expect(tableCount(db)).toBe(1));
  });

  it('flushes on the next turn once maxBatch entries are buffered, never inline', async () => {
    const rl = log({ maxBatch: 3 });
    rl.append(entry());
    rl.append(entry());
    rl.append(entry());
    expect(tableCount(db)).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(tableCount(db)).toBe(3);
  });

  it('writes every column of every row, whatever the batch size (rows go in 32 at a time)', () => {
    for (const n of [1, 31, 32, 33, 64, 65, 97]) {
      db.prepare('DELETE FROM request_log').run();
      const rl = log({ maxBatch: 1000 });
      const written = Array.from({ length: n }, (_, i) =>
        entry({
          at: NOW + i,
          clientFormat: i % 2 ? 'anthropic' : 'openai-chat',
          modelRequested: `model-${i}`,
          target: i % 3 ? `p/m-${i}` : null,
          provider: `p-${i}`,
          connection: `c-${i}`,
          status: 200 + i,
          latencyMs: 1000 + i,
          ttfbMs: i % 4 ? 10 + i : null,
          stream: i % 2 === 0,
          bytesIn: 3 * i,
          bytesOut: 5 * i,
          inputTokens: i,
          outputTokens: 2 * i,
          cachedTokens: i % 5 ? i : null,
          errorClass: i % 6 ? null : `class-${i}`,
          errorMessage: i % 6 ? null : `message ${i}`,
          decision: `decision ${i}`,
          egressIp: `10.0.0.${i}`,
          keyName: i % 7 ? `key-${i}` : null,
          cacheWriteTokens: i % 2 ? i + 1 : null,
          reasoningTokens: i % 3 ? i + 2 : null,
          costUsd: i % 2 ? i / 1000 : null,
        }),
      );
      const ids = written.map((e) => rl.append(e));
      rl.close();
      // A fresh log holds nothing in memory: what it shows was read back from the file.
      const rows = log().recent({ limit: 1000 }).reverse();
      expect(rows).toHaveLength(n);
      expect(rows).toMatchObject(written.map((e, i) => ({ id: ids[i], ...e })));
    }
  });

  it('close() flushes everything, and reopening shows the rows', () => {
    const store = openStore(file, { requestLog: { flushIntervalMs: 60_000, maxBatch: 2 } });
    const ids = [1, 2, 3, 4, 5].map((i) => store.requestLog.append(entry({ at: NOW + i })));
    store.close();
    store.close();
    expect(store.requestLog.append(entry())).toBe(0);
    const again = track(openStore(file));
    const rows = again.requestLog.recent({ limit: 100 });
    expect(rows.map((r) => r.id)).toEqual([...ids].reverse());
    expect(rows[0]).toMatchObject({ at: NOW + 5, stream: true, clientFormat: 'openai-chat' });
    // Ids continue after the stored ones.
    const next = again.requestLog.append(entry());
    expect(next).toBe(Math.max(...ids) + 1);
  });

  it('does not reuse ids of pruned rows', () => {
    const rl = log();
    rl.append(entry());
    const last = rl.append(entry());
    rl.flush();
    db.prepare('DELETE FROM request_log').run();
    const rl2 = log();
    expect(rl2.append(entry())).toBe(last + 1);
  });

  it('prunes by retention and by row count, at most once a minute', () => {
    const day = 86_400_000;
    let now = 100 * day;
    const rl = log({ retentionDays: 30, maxRows: 5, now: () => now });
    rl.append(entry({ at: now - 40 * day }));
    rl.append(entry({ at: now - 31 * day }));
    const kept = rl.append(entry({ at: now - 29 * day }));
    rl.flush();
    expect(rl.recent({ limit: 10 }).map((r) => r.id)).toEqual([kept]);

    // Within the minute: no prune, so more than maxRows may sit in the table.
    const ids = [1, 2, 3, 4, 5, 6].map(() => rl.append(entry({ at: now })));
    rl.flush();
    expect(tableCount(db)).toBe(7);
    now += 61_000;
    rl.append(entry({ at: now }));
    rl.flush();
    expect(rl.recent({ limit: 100 }).map((r) => r.id)).toEqual(
      [...ids.slice(-4), ids[5]! + 1].reverse(),
    );
  });

  it('caps the buffer when flushing fails, dropping the oldest, and never throws', () => {
    db.exec(`CREATE TRIGGER fail_log BEFORE INSERT ON request_log
             BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const errors: unknown[] = [];
    const rl = log({
      maxBuffer: 5,
      onError: (err) => {
        errors.push(err);
        throw new Error('handler blew up');
      },
    });
    const ids = Array.from({ length: 8 }, (_, i) => rl.append(entry({ at: i })));
    expect(() => rl.flush()).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/disk full/);
    expect(rl.stats()).toEqual({ pending: 5, dropped: 3, flushFailures: 1 });
    expect(rl.recent({ limit: 100 }).map((r) => r.id)).toEqual(ids.slice(3).reverse());

    db.exec('DROP TRIGGER fail_log');
    rl.flush();
    expect(tableCount(db)).toBe(5);
    expect(rl.recent({ limit: 100 }).map((r) => r.at)).toEqual([7, 6, 5, 4, 3]);
    expect(rl.stats()).toMatchObject({ pending: 0, dropped: 3 });
  });

  it('holds at most 50 000 entries by default', () => {
    db.exec(`CREATE TRIGGER fail_log BEFORE INSERT ON request_log
             BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const rl = log();
    for (let i = 0; i < 50_010; i++) rl.append(entry({ at: i }));
    expect(rl.stats()).toMatchObject({ pending: 50_000, dropped: 10 });
    expect(rl.recent({ limit: 1000 }).at(-1)?.at).toBe(50_010 - 1000);
    db.exec('DROP TRIGGER fail_log');
  });

  it('recent() filters, pages and clamps the limit across memory and disk', () => {
    const rl = log();
    const a = rl.append(entry({ provider: 'openai', connection: 'openai-1', status: 200 }));
    const b = rl.append(entry({ provider: 'openai', connection: 'openai-2', status: 503 }));
    const c = rl.append(
      entry({ provider: 'anthropic', connection: 'anthropic-1', status: 200, errorClass: 'x' }),
    );
    rl.flush();
    const d = rl.append(entry({ provider: 'anthropic', connection: 'anthropic-1', status: 429 }));
    const e = rl.append(entry({ provider: 'openai', connection: 'openai-1', status: 200 }));
    const ids = (q: Parameters<RequestLog['recent']>[0]) => rl.recent(q).map((r) => r.id);

    expect(ids({ limit: 100 })).toEqual([e, d, c, b, a]);
    expect(ids({ limit: 2 })).toEqual([e, d]);
    expect(ids({ limit: 2, beforeId: d })).toEqual([c, b]);
    expect(ids({ limit: 100, provider: 'openai' })).toEqual([e, b, a]);
    expect(ids({ limit: 100, connection: 'anthropic-1' })).toEqual([d, c]);
    expect(ids({ limit: 100, status: 200 })).toEqual([e, c, a]);
    expect(ids({ limit: 100, errorsOnly: true })).toEqual([d, c, b]);
    expect(ids({ limit: 100, provider: 'openai', errorsOnly: true })).toEqual([b]);
    expect(ids({ limit: 0 })).toEqual([e]);
    expect(ids({ limit: -5 })).toEqual([e]);

    for (let i = 0; i < 1100; i++) rl.append(entry());
    expect(rl.recent({ limit: 5000 })).toHaveLength(1000);
    rl.flush();
    expect(rl.recent({ limit: 5000 })).toHaveLength(1000);
  });

  it('recentEgress returns the newest egress IP of a connection since a time', () => {
    const rl = log();
    rl.append(entry({ connection: 'c1', at: 1000, egressIp: '10.0.0.1' }));
    rl.append(entry({ connection: 'c1', at: 2000, egressIp: '10.0.0.2' }));
    rl.append(entry({ connection: 'c1', at: 2500, egressIp: null }));
    rl.append(entry({ connection: 'c2', at: 3000, egressIp: '10.0.0.9' }));
    expect(rl.recentEgress('c1', 0)).toBe('10.0.0.2');
    rl.flush();
    expect(rl.recentEgress('c1', 0)).toBe('10.0.0.2');
    expect(rl.recentEgress('c1', 2001)).toBeNull();
    expect(rl.recentEgress('c3', 0)).toBeNull();
    // A pending entry beats an older stored one; a stored newer one beats an older pending one.
    rl.append(entry({ connection: 'c1', at: 4000, egressIp: '10.0.0.3' }));
    expect(rl.recentEgress('c1', 0)).toBe('10.0.0.3');
    rl.append(entry({ connection: 'c2', at: 100, egressIp: '10.0.0.8' }));
    expect(rl.recentEgress('c2', 0)).toBe('10.0.0.9');
  });

  it('survives another writer taking the next ids', () => {
    const rl = log();
    const mine = rl.append(entry({ at: 1 }));
    db.prepare('INSERT INTO request_log (at) VALUES (?)').run(2);
    rl.flush();
    const rows = rl.recent({ limit: 10 });
    expect(rows).toHaveLength(2);
    expect(rows[0]!.at).toBe(1);
    expect(rows[0]!.id).toBeGreaterThan(mine);
  });
});
