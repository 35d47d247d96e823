// Cache loss made visible (issue 30): each session's turns, how much of each prompt the
// provider read from its cache, and, when a turn reads far less than the previous turn left in
// the cache, why: the session moved to another key or target, its prompt changed before the
// new turn, or the cache's TTL passed. Pure: the caller passes the clock; memory is bounded.

import type { CacheLossReason, SessionCacheTurn, SessionCacheView } from '../../../shared/contract';
import type { BoundedMap, BoundedMaps } from '../bounded-map';
import { DIGEST_BYTES } from '../translate/prompt-blocks';

/** Sessions watched at once, the most recently used. */
const MAX_SESSIONS = 2_000;
/** A session idle this long is forgotten. */
const IDLE_MS = 86_400_000;
/** Turns kept per session for the Usage page. */
export const MAX_TURNS = 50;
/**
 * A previous turn that left less than this in the cache is no measure: providers cache
 * nothing shorter (Anthropic's and OpenAI's minimum cacheable prompt).
 */
const MIN_JUDGED_TOKENS = 1024;

/** One answered turn of a session, as the request path saw it. */
export interface CacheTurnInput {
  at: number;
  /**
   * The model the client asked for: a session's turns are watched per model, since agents send
   * side requests (titles, summaries on a small model) in the same session with other prompts.
   */
  model: string;
  connection: string;
  target: string;
  promptTokens: number;
  readTokens: number;
  writeTokens: number;
  /** Digests of the prompt's blocks in order (prompt-blocks.ts): tools, system, each turn. */
  blocks: Buffer;
  /** How long the provider keeps a cached prefix for this request. */
  ttlMs: number;
  /** The pick left the connection the session was pinned to: where, and what moved it. */
  moved: { from: string; why: string } | null;
}

export interface CacheLoss {
  session: string;
  model: string;
  turn: number;
  connection: string;
  target: string;
  readTokens: number;
  expectedTokens: number;
  reason: CacheLossReason;
  detail: string;
}

interface Watched {
  session: string;
  turns: number;
  last: CacheTurnInput;
  history: SessionCacheTurn[];
}

/** The block a digest index names (the layout of prompt-blocks.ts). */
export function blockName(i: number): string {
  return i === 0 ? 'tools' : i === 1 ? 'system prompt' : `turn ${i - 1}`;
}

export class CacheWatch {
  private readonly sessions: BoundedMap<string, Watched>;

  constructor(
    maps: BoundedMaps,
    /** `cacheWatch.lossRatio`: a turn reading under this share of what was cached is a loss. */
    private readonly lossRatio: () => number,
  ) {
    this.sessions = maps.create({
      name: 'cache_watch_sessions',
      maxEntries: MAX_SESSIONS,
      ttlMs: () => IDLE_MS,
    });
  }

  /** Notes an answered turn; the loss when it read far less than the previous turn cached. */
  note(session: string, turn: CacheTurnInput, now: number): CacheLoss | null {
    const key = `${session}\u0000${turn.model}`;
    const watched = this.sessions.get(key, now);
    let loss: CacheLoss | null = null;
    if (watched) {
      const expected = watched.last.readTokens + watched.last.writeTokens;
      if (expected >= MIN_JUDGED_TOKENS && turn.readTokens < this.lossRatio() * expected) {
        const [reason, detail] = why(watched.last, turn);
        loss = {
          session,
          model: turn.model,
          turn: watched.turns + 1,
          connection: turn.connection,
          target: turn.target,
          readTokens: turn.readTokens,
          expectedTokens: expected,
          reason,
          detail,
        };
      }
    }
    const entry: SessionCacheTurn = {
      turn: (watched?.turns ?? 0) + 1,
      at: turn.at,
      connection: turn.connection,
      promptTokens: turn.promptTokens,
      readTokens: turn.readTokens,
      lost: loss ? loss.reason : null,
      ...(loss ? { detail: loss.detail } : {}),
    };
    if (watched) {
      watched.turns++;
      watched.last = turn;
      watched.history.push(entry);
      if (watched.history.length > MAX_TURNS) watched.history.shift();
      this.sessions.set(key, watched, now);
    } else {
      this.sessions.set(key, { session, turns: 1, last: turn, history: [entry] }, now);
    }
    return loss;
  }

  /** The session's turns on a model (the last MAX_TURNS) with their hit rate, if watched. */
  view(session: string, model: string, now: number): SessionCacheView | null {
    const w = this.sessions.get(`${session}\u0000${model}`, now);
    return w ? viewOf(w) : null;
  }

  /** The most recently active sessions first, at most `limit`. */
  views(now: number, limit: number): SessionCacheView[] {
    const all = [...this.sessions.entries(now)].map(([, w]) => viewOf(w));
    return all.sort((a, b) => b.lastAt - a.lastAt).slice(0, limit);
  }
}

function viewOf(w: Watched): SessionCacheView {
  let prompt = 0;
  let read = 0;
  for (const t of w.history) {
    prompt += t.promptTokens;
    read += t.readTokens;
  }
  return {
    session: w.session,
    model: w.last.model,
    turns: w.turns,
    lastAt: w.last.at,
    hitRate: prompt > 0 ? read / prompt : 0,
    history: [...w.history],
  };
}

/** Why a turn read less than the one before cached, in order of how surely it explains it. */
function why(prev: CacheTurnInput, now: CacheTurnInput): [CacheLossReason, string] {
  if (prev.connection !== now.connection || prev.target !== now.target) {
    const where =
      prev.target !== now.target
        ? `${prev.target} (${prev.connection}) to ${now.target} (${now.connection})`
        : `${prev.connection} to ${now.connection}`;
    const cause = now.moved
      ? `: ${now.moved.why}`
      : ': nothing held it to the key with its cache (no session pin)';
    return ['moved', `session moved from ${where}${cause}`];
  }
  const common = Math.min(prev.blocks.length, now.blocks.length);
  for (let i = 0; i < common; i += DIGEST_BYTES) {
    if (prev.blocks.compare(now.blocks, i, i + DIGEST_BYTES, i, i + DIGEST_BYTES) !== 0) {
      return [
        'prefix_changed',
        `prompt changed before the new turn; first differing block: ${blockName(i / DIGEST_BYTES)}`,
      ];
    }
  }
  if (now.blocks.length < prev.blocks.length) {
    return [
      'prefix_changed',
      `prompt shortened from ${prev.blocks.length / DIGEST_BYTES - 2} turns to ${now.blocks.length / DIGEST_BYTES - 2}`,
    ];
  }
  const idle = now.at - prev.at;
  if (idle > now.ttlMs) {
    return [
      'ttl_expired',
      `${Math.round(idle / 1000)} s since the previous turn, past the cache's ${Math.round(now.ttlMs / 1000)} s TTL`,
    ];
  }
  return [
    'unknown',
    'same key, same prompt prefix, within the TTL: the provider evicted the cache',
  ];
}
