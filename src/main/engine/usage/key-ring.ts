// Gateway API keys as managed clients: created, renamed, revoked and rotated through the admin
// API, stored as a SHA-256 of the secret, and matched on the request path from memory (a hash
// and a map lookup; no disk). The secret of a new key is returned once and never kept.

import { createHash, randomBytes } from 'node:crypto';
import type { GatewayApiKeyConfig, GatewayKeyInput, KeyLimits } from '../../../shared/contract';
import type { GatewayKeyRecord, GatewayKeyRepo } from '../store';

/** A key as a request presents it: what the stages after `identify` read. */
export interface PresentedKey extends GatewayApiKeyConfig {
  id: string;
  limits: KeyLimits;
}

export class KeyRingError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

const SECRET_PREFIX = 'bw-';
/** Characters of a generated secret shown in lists, to tell keys apart. */
const SHOWN_CHARS = SECRET_PREFIX.length + 6;

/** Distinct live secrets remembered; past it the memory starts again (a few keys is the rule). */
const RECENT_LIMIT = 256;

function hashOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class KeyRing {
  private byHash = new Map<string, PresentedKey>();
  private byName = new Map<string, PresentedKey>();
  /**
   * Secrets presented recently → their key: a client sends the same secret on every request,
   * and a SHA-256 plus a copy per request was a tenth of the identify stage. Emptied on every
   * change of the keys (a revoked key is refused from the next request on); only live keys'
   * secrets, which the process sees on every request anyway, are kept.
   */
  private recent = new Map<string, PresentedKey>();
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly repo: GatewayKeyRepo,
    private readonly now: () => number,
  ) {
    this.refresh();
  }

  /**
   * Adds or updates the config file's keys by name. A key revoked through the API stays revoked
   * while the config names the same secret; a new secret in the config makes it live again.
   */
  importConfig(keys: readonly GatewayApiKeyConfig[]): void {
    const now = this.now();
    for (const k of keys) {
      const existing = this.repo.byName(k.name);
      const keyHash = hashOf(k.key);
      this.repo.save({
        id: existing?.id ?? newId(),
        name: k.name,
        keyHash,
        prefix: '',
        scopes: k.scopes ?? [],
        allowedConnections: k.allowedConnections ?? [],
        limits: k.limits ?? {},
        source: 'config',
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
        revokedAt: existing?.keyHash === keyHash ? existing.revokedAt : null,
      });
    }
    this.refresh();
  }

  /** Runs `listener` after every change of the live keys (leases follow their key's scopes). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Live (not revoked) keys. */
  get size(): number {
    return this.byHash.size;
  }

  /** The live key whose secret was presented, or null. */
  match(presented: string | null): PresentedKey | null {
    if (!presented) return null;
    const known = this.recent.get(presented);
    if (known) return known;
    const key = this.byHash.get(hashOf(presented));
    if (!key) return null;
    const match = Object.freeze({ ...key, key: presented });
    if (this.recent.size >= RECENT_LIMIT) this.recent.clear();
    this.recent.set(presented, match);
    return match;
  }

  list(): GatewayKeyRecord[] {
    return this.repo.list();
  }

  /** The live key named `name`, for its limits (a revoked key has none left to check). */
  liveByName(name: string): PresentedKey | null {
    return this.byName.get(name) ?? null;
  }

  create(input: GatewayKeyInput & { name: string }): { record: GatewayKeyRecord; key: string } {
    this.checkName(input.name, null);
    const key = newSecret();
    const now = this.now();
    const record: GatewayKeyRecord = {
      id: newId(),
      name: input.name,
      keyHash: hashOf(key),
      prefix: key.slice(0, SHOWN_CHARS),
      scopes: input.scopes ?? [],
      allowedConnections: input.allowedConnections ?? [],
      limits: input.limits ?? {},
      source: 'api',
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    };
    this.repo.save(record);
    this.refresh();
    return { record, key };
  }

  /** Renames the key or replaces its scopes, allowed connections or limits. */
  update(id: string, input: GatewayKeyInput): GatewayKeyRecord {
    const existing = this.get(id);
    if (input.name !== undefined) this.checkName(input.name, id);
    const record: GatewayKeyRecord = {
      ...existing,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
      ...(input.allowedConnections !== undefined
        ? { allowedConnections: input.allowedConnections }
        : {}),
      ...(input.limits !== undefined ? { limits: input.limits } : {}),
      updatedAt: this.now(),
    };
    this.repo.save(record);
    this.refresh();
    return record;
  }

  /** Refused from the next request on; revoking twice keeps the first time. */
  revoke(id: string): GatewayKeyRecord {
    const existing = this.get(id);
    const now = this.now();
    const record = { ...existing, revokedAt: existing.revokedAt ?? now, updatedAt: now };
    this.repo.save(record);
    this.refresh();
    return record;
  }

  /** A new secret for a live key; the old one is refused from the next request on. */
  rotate(id: string): { record: GatewayKeyRecord; key: string } {
    const existing = this.get(id);
    if (existing.revokedAt !== null) {
      throw new KeyRingError('conflict', `key "${existing.name}" is revoked; create a new one`);
    }
    const key = newSecret();
    const record: GatewayKeyRecord = {
      ...existing,
      keyHash: hashOf(key),
      prefix: key.slice(0, SHOWN_CHARS),
      // A rotated config key no longer matches the file; it is the API's from now on.
      source: 'api',
      updatedAt: this.now(),
    };
    this.repo.save(record);
    this.refresh();
    return { record, key };
  }

  private get(id: string): GatewayKeyRecord {
    const record = this.repo.get(id);
    if (!record) throw new KeyRingError('not_found', `gateway key "${id}" not found`);
    return record;
  }

  private checkName(name: string, id: string | null): void {
    const other = this.repo.byName(name);
    if (other && other.id !== id) {
      throw new KeyRingError(
        'conflict',
        `a gateway key named "${name}" already exists${other.revokedAt !== null ? ' (revoked; rename it first)' : ''}`,
      );
    }
  }

  private refresh(): void {
    const byHash = new Map<string, PresentedKey>();
    const byName = new Map<string, PresentedKey>();
    for (const r of this.repo.list()) {
      if (r.revokedAt !== null) continue;
      const key: PresentedKey = {
        id: r.id,
        name: r.name,
        key: '',
        scopes: r.scopes,
        allowedConnections: r.allowedConnections,
        limits: r.limits,
      };
      byHash.set(r.keyHash, key);
      byName.set(r.name, key);
    }
    this.byHash = byHash;
    this.byName = byName;
    this.recent = new Map();
    for (const listener of this.listeners) listener();
  }
}

function newSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64url');
}

function newId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}
