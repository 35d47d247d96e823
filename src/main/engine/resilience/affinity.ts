import type { IncomingHttpHeaders } from 'node:http';
import type { SessionView } from '../../../shared/contract';
import { type BoundedMap, BoundedMaps } from '../bounded-map';
import type { SessionPin } from '../store';

/**
 * Headers that carry a client session id, in order of preference. The first three are ours
 * and the spec's; Claude Code sends `x-claude-code-session-id`; Codex CLI sends `session_id`
 * (and some builds `session-id`). None of them is ever forwarded upstream.
 */
export const SESSION_HEADERS = [
  'x-breakwater-session',
  'x-session-id',
  'x-codex-session-id',
  'x-claude-code-session-id',
  'session-id',
  'session_id',
] as const;

const MAX_SESSION_ID = 256;

export function sessionIdOf(headers: IncomingHttpHeaders): string | null {
  for (const name of SESSION_HEADERS) {
    const v = headers[name];
    const id = (Array.isArray(v) ? v[0] : v)?.trim();
    if (id) return id.slice(0, MAX_SESSION_ID);
  }
  return null;
}

/** Claude Code's `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>`. */
const USER_ID_SESSION = /_session_([0-9A-Za-z-]{8,})$/;

/**
 * The session a request body names, for clients that send no session header: `prompt_cache_key`
 * (Responses and Chat: Codex CLI, Qwen Code), else the session inside Anthropic's
 * `metadata.user_id` (as a suffix, or a JSON text with a `session_id`). A session header wins.
 */
export function bodySessionId(promptCacheKey: unknown, metadata: unknown): string | null {
  if (typeof promptCacheKey === 'string' && promptCacheKey.trim() !== '') {
    return promptCacheKey.trim().slice(0, MAX_SESSION_ID);
  }
  const userId =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>).user_id
      : undefined;
  if (typeof userId !== 'string') return null;
  const suffix = USER_ID_SESSION.exec(userId)?.[1];
  if (suffix) return suffix.slice(0, MAX_SESSION_ID);
  if (!userId.startsWith('{')) return null;
  try {
    const session = (JSON.parse(userId) as Record<string, unknown>).session_id;
    return typeof session === 'string' && session !== '' ? session.slice(0, MAX_SESSION_ID) : null;
  } catch {
    return null;
  }
}

/** Pins kept at most: a session that never returns is dropped at its TTL, or here first. */
export const MAX_SESSION_PINS = 50_000;

export interface AffinityBounds {
  /** sessionAffinityTtlMs, read on every check: 0 turns affinity off (and expires every pin). */
  ttlMs: () => number;
  /** The engine's bounded maps (swept and counted in `/metrics`); one of its own when omitted. */
  maps?: BoundedMaps;
  maxEntries?: number;
}

/**
 * Session affinity (RESILIENCE.md §9): a session stays on the connection that last served it
 * while its pin lives; the TTL is refreshed on use. Pins are bounded: swept at their TTL and
 * capped, least recently used out (clients send a new session per conversation). Changes, drops
 * included, are collected for a batched write; nothing here touches the disk.
 */
export class SessionAffinity {
  private readonly pins: BoundedMap<string, SessionPin>;
  readonly dirty = new Map<string, SessionPin | null>();

  constructor(
    restored: SessionPin[],
    private readonly bounds: AffinityBounds,
  ) {
    this.pins = (bounds.maps ?? new BoundedMaps(Date.now)).create({
      name: 'session_pins',
      maxEntries: bounds.maxEntries ?? MAX_SESSION_PINS,
      ttlMs: bounds.ttlMs,
      onDrop: (session) => this.dirty.set(session, null),
    });
    // Oldest first, each at the time it was last written, so the map's order is its expiry's.
    const ttl = bounds.ttlMs();
    for (const p of [...restored].sort((a, b) => a.expiresAt - b.expiresAt)) {
      this.pins.set(p.session, p, p.expiresAt - ttl);
    }
    this.dirty.clear();
  }

  /** The pinned connection, or null (no pin, expired, or affinity off). */
  pinned(session: string, now: number): string | null {
    if (this.bounds.ttlMs() <= 0) return null;
    return this.pins.get(session, now)?.connection ?? null;
  }

  /** Pins (or re-pins after a failover) the session to the connection that served it. */
  pin(session: string, connection: string, now: number): void {
    const ttl = this.bounds.ttlMs();
    if (ttl <= 0) return;
    const pin = { session, connection, expiresAt: now + ttl };
    this.pins.set(session, pin, now);
    this.dirty.set(session, pin);
  }

  /** Drops pins to a connection that no longer exists. */
  forgetConnection(connection: string, now: number): void {
    for (const [session, p] of [...this.pins.entries(now)]) {
      if (p.connection === connection) {
        this.pins.delete(session);
        this.dirty.set(session, null);
      }
    }
  }

  views(now: number): SessionView[] {
    return [...this.pins.entries(now)].map(([, p]) => ({
      session: p.session,
      connection: p.connection,
      expiresAt: p.expiresAt,
    }));
  }

  takeDirty(): Map<string, SessionPin | null> {
    const batch = new Map(this.dirty);
    this.dirty.clear();
    return batch;
  }
}
