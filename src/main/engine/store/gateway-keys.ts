// Gateway API keys: stored as a SHA-256 of the secret (the secret itself is never written), with
// the first characters kept to tell keys apart. Revoked keys stay as rows, so their name keeps
// naming their usage.

import type { KeyLimits } from '../../../shared/contract';
import type { Db } from './db';
import { parseObject, parseStringArray } from './json';

export interface GatewayKeyRecord {
  id: string;
  name: string;
  keyHash: string;
  prefix: string;
  scopes: string[];
  allowedConnections: string[];
  limits: KeyLimits;
  source: 'config' | 'api';
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

interface Row {
  id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string;
  allowed_connections: string;
  limits: string;
  source: 'config' | 'api';
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

export interface GatewayKeyRepo {
  /** Every key, revoked ones included, oldest first. */
  list(): GatewayKeyRecord[];
  get(id: string): GatewayKeyRecord | null;
  byName(name: string): GatewayKeyRecord | null;
  /** Inserts or replaces the key with this id. */
  save(key: GatewayKeyRecord): void;
}

function fromRow(r: Row): GatewayKeyRecord {
  return {
    id: r.id,
    name: r.name,
    keyHash: r.key_hash,
    prefix: r.prefix,
    scopes: parseStringArray(r.scopes),
    allowedConnections: parseStringArray(r.allowed_connections),
    limits: parseObject<KeyLimits>(r.limits),
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    revokedAt: r.revoked_at,
  };
}

export function createGatewayKeyRepo(db: Db): GatewayKeyRepo {
  const listStmt = db.prepare<[], Row>('SELECT * FROM gateway_keys ORDER BY created_at, id');
  const getStmt = db.prepare<[string], Row>('SELECT * FROM gateway_keys WHERE id = ?');
  const byNameStmt = db.prepare<[string], Row>('SELECT * FROM gateway_keys WHERE name = ?');
  const saveStmt = db.prepare(
    `INSERT INTO gateway_keys (id, name, key_hash, prefix, scopes, allowed_connections, limits,
       source, created_at, updated_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET name = excluded.name, key_hash = excluded.key_hash,
       prefix = excluded.prefix, scopes = excluded.scopes,
       allowed_connections = excluded.allowed_connections, limits = excluded.limits,
       source = excluded.source, updated_at = excluded.updated_at,
       revoked_at = excluded.revoked_at`,
  );
  return {
    list: () => listStmt.all().map(fromRow),
    get: (id) => {
      const r = getStmt.get(id);
      return r ? fromRow(r) : null;
    },
    byName: (name) => {
      const r = byNameStmt.get(name);
      return r ? fromRow(r) : null;
    },
    save: (k) => {
      saveStmt.run(
        k.id,
        k.name,
        k.keyHash,
        k.prefix,
        JSON.stringify(k.scopes),
        JSON.stringify(k.allowedConnections),
        JSON.stringify(k.limits),
        k.source,
        k.createdAt,
        k.updatedAt,
        k.revokedAt,
      );
    },
  };
}
