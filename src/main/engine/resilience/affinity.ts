import type { IncomingHttpHeaders } from 'node:http';
import type { SessionView } from '../../../shared/contract';
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

/**
 * Session affinity (RESILIENCE.md §9): a session stays on the connection that last served it
 * while its pin lives; the TTL is refreshed on use; 0 turns affinity off. Expiry is lazy.
 * Changes are collected for a batched write; nothing here touches the disk.
 */
export class SessionAffinity {
  private readonly pins = new Map<string, SessionPin>();
  readonly dirty = new Map<string, SessionPin | null>();

  constructor(restored: SessionPin[] = []) {
    for (const p of restored) this.pins.set(p.session, p);
  }

  /** The pinned connection, or null (no pin, expired, or affinity off). */
  pinned(session: string, now: number, ttlMs: number): string | null {
    if (ttlMs <= 0) return null;
    const p = this.pins.get(session);
    if (!p) return null;
    if (p.expiresAt <= now) {
      this.pins.delete(session);
      this.dirty.set(session, null);
      return null;
    }
    return p.connection;
  }

  /** Pins (or re-pins after a failover) the session to the connection that served it. */
  pin(session: string, connection: string, now: number, ttlMs: number): void {
    if (ttlMs <= 0) return;
    const pin = { session, connection, expiresAt: now + ttlMs };
    this.pins.set(session, pin);
    this.dirty.set(session, pin);
  }

  /** Drops pins to a connection that no longer exists. */
  forgetConnection(connection: string): void {
    for (const [session, p] of this.pins) {
      if (p.connection === connection) {
        this.pins.delete(session);
        this.dirty.set(session, null);
      }
    }
  }

  views(now: number): SessionView[] {
    const out: SessionView[] = [];
    for (const p of this.pins.values()) {
      if (p.expiresAt > now)
        out.push({ session: p.session, connection: p.connection, expiresAt: p.expiresAt });
    }
    return out;
  }

  takeDirty(): Map<string, SessionPin | null> {
    const batch = new Map(this.dirty);
    this.dirty.clear();
    return batch;
  }
}
