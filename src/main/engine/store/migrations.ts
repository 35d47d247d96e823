// Numbered, forward-only schema migrations tracked with `PRAGMA user_version`.
// Never edit a migration that has shipped: append a new one with the next version.

import type { Db } from './db';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    up: `
      CREATE TABLE providers (
        id TEXT PRIMARY KEY,
        format TEXT NOT NULL,
        base_url TEXT NOT NULL,
        auth_class TEXT NOT NULL,
        models TEXT NOT NULL,
        timeouts TEXT NOT NULL DEFAULT '{}',
        enabled INTEGER NOT NULL DEFAULT 1,
        position INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER,
        updated_at INTEGER
      );

      CREATE TABLE connections (
        id TEXT PRIMARY KEY,
        provider_id TEXT NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
        api_key TEXT,
        api_key_env TEXT,
        max_concurrent INTEGER,
        enabled INTEGER NOT NULL DEFAULT 1,
        position INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER,
        updated_at INTEGER
      );
      CREATE INDEX connections_provider_id ON connections(provider_id);

      CREATE TABLE combos (
        name TEXT PRIMARY KEY,
        strategy TEXT NOT NULL,
        targets TEXT NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER,
        updated_at INTEGER
      );

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER
      );

      CREATE TABLE request_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        client_format TEXT,
        model_requested TEXT,
        target TEXT,
        provider TEXT,
        connection TEXT,
        status INTEGER,
        latency_ms INTEGER,
        ttfb_ms INTEGER,
        stream INTEGER,
        bytes_in INTEGER,
        bytes_out INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cached_tokens INTEGER,
        error_class TEXT,
        error_message TEXT,
        decision TEXT,
        egress_ip TEXT
      );
      CREATE INDEX request_log_at ON request_log(at);
      CREATE INDEX request_log_connection_at ON request_log(connection, at);
    `,
  },
  {
    version: 2,
    name: 'resilience state and per-provider/connection options',
    up: `
      ALTER TABLE providers ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
      ALTER TABLE connections ADD COLUMN options TEXT NOT NULL DEFAULT '{}';

      CREATE TABLE breakers (
        provider TEXT PRIMARY KEY REFERENCES providers(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        failure_count INTEGER NOT NULL,
        opened_at INTEGER,
        reset_timeout_ms INTEGER,
        failed_probes INTEGER NOT NULL DEFAULT 0,
        history TEXT NOT NULL DEFAULT '[]',
        updated_at INTEGER
      );

      CREATE TABLE connection_health (
        connection_id TEXT PRIMARY KEY REFERENCES connections(id) ON DELETE CASCADE,
        health TEXT NOT NULL,
        updated_at INTEGER
      );

      CREATE TABLE model_lockouts (
        key TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        subject TEXT NOT NULL,
        scope TEXT NOT NULL,
        reason TEXT NOT NULL,
        failure_count INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX model_lockouts_connection ON model_lockouts(connection_id);
    `,
  },
  {
    version: 3,
    name: 'session affinity pins',
    up: `
      CREATE TABLE session_pins (
        session TEXT PRIMARY KEY,
        connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX session_pins_expires ON session_pins(expires_at);
    `,
  },
  {
    version: 4,
    name: 'exclusive session leases',
    up: `
      CREATE TABLE session_leases (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_hash TEXT NOT NULL,
        key_name TEXT NOT NULL,
        connection_id TEXT NOT NULL,
        generation INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('ACTIVE', 'RELEASED', 'EXPIRED', 'INVALIDATED')),
        end_reason TEXT,
        acquired_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE UNIQUE INDEX session_leases_active_owner ON session_leases(owner_hash)
        WHERE state = 'ACTIVE';
      CREATE UNIQUE INDEX session_leases_active_connection ON session_leases(connection_id)
        WHERE state = 'ACTIVE';
      CREATE UNIQUE INDEX session_leases_owner_generation
        ON session_leases(owner_hash, generation);
      CREATE INDEX session_leases_active_expiry ON session_leases(expires_at)
        WHERE state = 'ACTIVE';
    `,
  },
  {
    version: 5,
    name: 'anthropic subscription lane and limit reset state',
    up: `
      CREATE TABLE subscription_state (
        connection_id TEXT PRIMARY KEY REFERENCES connections(id) ON DELETE CASCADE,
        lane TEXT NOT NULL DEFAULT '{"kind":"idle"}',
        limit_reset TEXT NOT NULL DEFAULT '{"kind":"ready"}',
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'gateway keys, usage accounting and per-minute usage roll-ups',
    up: `
      ALTER TABLE request_log ADD COLUMN key_name TEXT;
      ALTER TABLE request_log ADD COLUMN cache_write_tokens INTEGER;
      ALTER TABLE request_log ADD COLUMN reasoning_tokens INTEGER;
      ALTER TABLE request_log ADD COLUMN cost_usd REAL;

      CREATE TABLE gateway_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        key_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        scopes TEXT NOT NULL DEFAULT '[]',
        allowed_connections TEXT NOT NULL DEFAULT '[]',
        limits TEXT NOT NULL DEFAULT '{}',
        source TEXT NOT NULL CHECK (source IN ('config', 'api')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        revoked_at INTEGER
      );

      CREATE TABLE usage_minutes (
        minute INTEGER NOT NULL,
        provider TEXT NOT NULL,
        connection TEXT NOT NULL,
        model TEXT NOT NULL,
        combo TEXT NOT NULL,
        key_name TEXT NOT NULL,
        session TEXT NOT NULL,
        requests INTEGER NOT NULL,
        errors INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        estimated INTEGER NOT NULL,
        PRIMARY KEY (minute, provider, connection, model, combo, key_name, session)
      ) WITHOUT ROWID;
      CREATE INDEX usage_minutes_key ON usage_minutes(key_name, minute);
    `,
  },
  {
    version: 7,
    name: 'request-shape fixes learnt per provider and model',
    up: `
      CREATE TABLE learned_fixes (
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        param TEXT NOT NULL,
        fix TEXT NOT NULL,
        cause TEXT NOT NULL DEFAULT '',
        learned_at INTEGER NOT NULL,
        PRIMARY KEY (provider, model, param)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    name: 'last known upstream quota per connection',
    up: `
      CREATE TABLE connection_quotas (
        connection TEXT PRIMARY KEY,
        quota TEXT NOT NULL,
        learned_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    name: 'captured calls of request log rows',
    up: `
      CREATE TABLE request_captures (
        log_id INTEGER PRIMARY KEY REFERENCES request_log(id) ON DELETE CASCADE,
        capture TEXT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'usage roll-ups by session',
    // `GET /api/sessions/{id}` reads one session's minutes; without this it scans the table.
    up: 'CREATE INDEX usage_minutes_session ON usage_minutes(session, minute);',
  },
  {
    version: 11,
    name: 'when each model lockout was set, for its re-probe',
    // NULL on older rows: they are not re-probed, and run to their stored end.
    up: 'ALTER TABLE model_lockouts ADD COLUMN locked_at INTEGER;',
  },
];

/** Highest schema version this build knows how to read and write. */
export const LATEST_SCHEMA_VERSION = latestVersion(migrations);

/** Thrown when the database file was written by a newer Breakwater than this one. */
export class NewerSchemaError extends Error {
  readonly code = 'BW_SCHEMA_TOO_NEW';

  constructor(
    readonly file: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database at ${file} was written by a newer Breakwater (schema v${found}; ` +
        `this version knows up to v${known}). Upgrade Breakwater, or point --data-dir ` +
        'elsewhere to start with a separate database.',
    );
    this.name = 'NewerSchemaError';
  }
}

export function getSchemaVersion(db: Db): number {
  const value = db.pragma('user_version', { simple: true });
  return typeof value === 'number' ? value : Number(value);
}

/** Fails with a clear message when the file's schema is newer than this build knows. */
export function assertSchemaSupported(
  db: Db,
  file: string = db.name,
  list: readonly Migration[] = migrations,
): void {
  const found = getSchemaVersion(db);
  const known = latestVersion(list);
  if (found > known) throw new NewerSchemaError(file, found, known);
}

/**
 * Brings the schema up to date. Each pending migration runs in its own IMMEDIATE transaction
 * together with its `user_version` bump, so a crash leaves the file at a whole version, and two
 * processes opening the same fresh file do not both apply the same migration.
 * Returns the versions that were applied.
 */
export function migrate(
  db: Db,
  list: readonly Migration[] = migrations,
  file: string = db.name,
): number[] {
  validate(list);
  assertSchemaSupported(db, file, list);
  const applied: number[] = [];
  for (const migration of list) {
    if (getSchemaVersion(db) >= migration.version) continue;
    const apply = db.transaction(() => {
      const current = getSchemaVersion(db);
      if (current > latestVersion(list))
        throw new NewerSchemaError(file, current, latestVersion(list));
      if (current >= migration.version) return false;
      db.exec(migration.up);
      db.pragma(`user_version = ${migration.version}`);
      return true;
    });
    if (apply.immediate()) applied.push(migration.version);
  }
  return applied;
}

function latestVersion(list: readonly Migration[]): number {
  return list.reduce((max, m) => Math.max(max, m.version), 0);
}

function validate(list: readonly Migration[]): void {
  let previous = 0;
  for (const m of list) {
    if (!Number.isSafeInteger(m.version) || m.version <= previous) {
      throw new Error(
        `Migrations must have increasing positive integer versions (found v${m.version} "${m.name}" after v${previous})`,
      );
    }
    previous = m.version;
  }
}
