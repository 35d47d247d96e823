// The one read-only view strategies decide from, and the memory behind it that the engine feeds
// from attempt outcomes. Nothing here throws for a missing signal: it answers `undefined`.

import type { ModelSpec } from '../../../shared/contract';
import { type BoundedMap, BoundedMaps } from '../bounded-map';
import type { Catalog } from '../config/catalog';
import { RelaySessions } from './context-relay';
import { QuotaBook } from './quota-book';
import { type Headers, type Quota, quotaFromHeaders } from './rate-limit-headers';
import type { Candidate } from './resolve';

/** Load the flow control knows right now (passed in: routing sits below resilience). */
export interface LiveLoad {
  inFlight(connection: string): number;
  /** Every `maxConcurrent` permit taken, or the candidate cooling down or locked out. */
  saturated(c: Candidate): boolean;
}

export interface SignalsView extends LiveLoad {
  readonly now: number;
  /** Latency to the answer's head, exponentially weighted (ms), per target label. */
  latencyMs(target: string): number | undefined;
  /** Share of recent attempts that failed (0-1, exponentially weighted), per target label. */
  errorRate(target: string): number | undefined;
  /** Requests routed to a target within the last `windowMs`. */
  recentRequests(target: string, windowMs: number): number;
  /** What the connection's last answer said about its quota. */
  quota(connection: string): Quota | undefined;
  /** Context window and price (configured over the defaults). */
  modelSpec(c: Candidate): ModelSpec;
  /** Requests this combo has routed so far (round-robin turns). */
  turns(combo: string): number;
  /** Targets dealt in the strict-random deck's current cycle. */
  dealt(combo: string): ReadonlySet<string>;
  /** The target that last served this combo, until it fails. */
  lastGood(combo: string): string | undefined;
  /** The target that last served this prompt prefix in this combo. */
  prefixTarget(combo: string, prefix: string): string | undefined;
}

const EWMA_ALPHA = 0.3;
const BUCKET_MS = 1000;
/** The longest `least-used` window the counts are kept for (the option's maximum). */
export const MAX_RECENT_WINDOW_MS = 3_600_000;
/** Prompt prefixes remembered at most, and for about a provider prompt cache's life. */
const PREFIX_LIMIT = 2048;
const PREFIX_TTL_MS = 3_600_000;
/**
 * Targets with statistics at most (a client may name any `provider/model`), and how long after
 * their last call: longer than the `least-used` window.
 */
const TARGET_LIMIT = 1024;
const TARGET_TTL_MS = 24 * 3_600_000;

interface TargetStats {
  latency?: number;
  errors?: number;
  /** Start of a second (epoch ms) → requests routed in it, oldest first. */
  buckets: Map<number, number>;
}

/** A call's outcome as routing learns it: ok, failed, or neither (client gone, expired). */
export interface CallLearning {
  ok: boolean;
  /** From sending to the answer's head. */
  latencyMs: number;
  headers: Headers | null;
}

export class RoutingSignals {
  /** context-relay: which target each session was last served by. */
  readonly relaySessions: RelaySessions;
  private readonly targets: BoundedMap<string, TargetStats>;
  // Keyed by combo: as many as the config names.
  private readonly turnCount = new Map<string, number>();
  private readonly decks = new Map<string, Set<string>>();
  private readonly good = new Map<string, string>();
  private readonly prefixes: BoundedMap<string, string>;

  constructor(
    readonly rng: () => number = Math.random,
    /** Kept across restarts when the engine gives it a store. */
    readonly quotas: QuotaBook = new QuotaBook(),
    /** The engine's bounded maps (swept and counted in `/metrics`). */
    maps: BoundedMaps = new BoundedMaps(Date.now),
  ) {
    this.relaySessions = new RelaySessions(maps);
    this.targets = maps.create({
      name: 'target_stats',
      maxEntries: TARGET_LIMIT,
      ttlMs: () => TARGET_TTL_MS,
    });
    this.prefixes = maps.create({
      name: 'prompt_prefixes',
      maxEntries: PREFIX_LIMIT,
      ttlMs: () => PREFIX_TTL_MS,
    });
  }

  /** The target's statistics, written now (so the least recently used go first). */
  private stats(target: string, now: number): TargetStats {
    const s = this.targets.get(target, now) ?? { buckets: new Map() };
    this.targets.set(target, s, now);
    return s;
  }

  /** A strategy put `target` first for `combo`. */
  routed(combo: string, target: string, deckSize: number, now: number): void {
    this.turnCount.set(combo, (this.turnCount.get(combo) ?? 0) + 1);
    let deck = this.decks.get(combo);
    if (!deck || deck.size >= deckSize) {
      deck = new Set();
      this.decks.set(combo, deck);
    }
    deck.add(target);
    const s = this.stats(target, now);
    const second = now - (now % BUCKET_MS);
    s.buckets.set(second, (s.buckets.get(second) ?? 0) + 1);
    for (const at of s.buckets.keys()) {
      if (at > now - MAX_RECENT_WINDOW_MS) break;
      s.buckets.delete(at);
    }
  }

  /** An upstream call ended (headers in, or failed before them). */
  learnCall(c: Candidate, outcome: CallLearning, now: number): void {
    const s = this.stats(c.target.label, now);
    const failed = outcome.ok ? 0 : 1;
    s.errors = s.errors === undefined ? failed : s.errors + EWMA_ALPHA * (failed - s.errors);
    if (outcome.ok) {
      s.latency =
        s.latency === undefined
          ? outcome.latencyMs
          : s.latency + EWMA_ALPHA * (outcome.latencyMs - s.latency);
    }
    const quota = outcome.headers ? quotaFromHeaders(outcome.headers, now) : null;
    if (quota) this.quotas.learn(c.connection.id, quota);
  }

  /** How a combo's request ended: lkgp and cache-optimized remember who served. */
  settled(combo: string, target: string, ok: boolean, prefix: string | null, now: number): void {
    if (ok) this.good.set(combo, target);
    else if (this.good.get(combo) === target) this.good.delete(combo);
    if (!ok || prefix === null) return;
    this.prefixes.set(`${combo}\u0000${prefix}`, target, now);
  }

  view(live: LiveLoad, catalog: Catalog, now: number): SignalsView {
    return {
      now,
      inFlight: (connection) => live.inFlight(connection),
      saturated: (c) => live.saturated(c),
      latencyMs: (t) => this.targets.get(t, now)?.latency,
      errorRate: (t) => this.targets.get(t, now)?.errors,
      recentRequests: (t, windowMs) => {
        let n = 0;
        for (const [at, count] of this.targets.get(t, now)?.buckets ?? []) {
          if (at > now - windowMs) n += count;
        }
        return n;
      },
      quota: (connection) => this.quotas.get(connection),
      modelSpec: (c) => catalog.modelSpec(c.target.provider.id, c.target.model),
      turns: (combo) => this.turnCount.get(combo) ?? 0,
      dealt: (combo) => this.decks.get(combo) ?? new Set(),
      lastGood: (combo) => this.good.get(combo),
      prefixTarget: (combo, prefix) => this.prefixes.get(`${combo}\u0000${prefix}`, now),
    };
  }
}
