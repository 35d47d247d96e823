// The per-minute usage roll-up: samples are summed in memory on the request path (no disk work)
// and a timer adds the sums to SQLite, as the request log does with its rows.

import type { UsageBucket, UsageRollupRepo } from '../store';
import type { UsageSample } from './accounting';

export interface UsageRollupOptions {
  repo: UsageRollupRepo;
  now: () => number;
  /** How long sums wait in memory before they are written (default 1 s). */
  flushIntervalMs?: number;
  /** Minutes older than this are pruned; read at each prune (default 90 days). */
  retentionDays?: () => number;
  /** Write and prune failures end up here; the sums are kept and retried. */
  onError?: (err: unknown) => void;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Distinct buckets held while writing fails; beyond it the newest samples are dropped. */
const MAX_PENDING_BUCKETS = 100_000;

const SEP = '\u0000';
const RECENT_BUCKETS = 4;

export class UsageRollup {
  private pending = new Map<string, UsageBucket>();
  /** Buckets of `pending` added to last (see recentBucket). */
  private readonly recent: UsageBucket[] = [];
  private nextRecent = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pruneTimer: NodeJS.Timeout;
  private lastPruneAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Samples dropped because writing kept failing or the roll-up was closed. */
  dropped = 0;

  constructor(private readonly opts: UsageRollupOptions) {
    this.pruneTimer = setInterval(() => this.maybePrune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  add(s: UsageSample): void {
    const minute = s.at - (s.at % MINUTE_MS);
    const b = this.recentBucket(s, minute) ?? this.bucket(s, minute);
    if (!b) return;
    b.requests++;
    if (s.error) b.errors++;
    b.inputTokens += s.inputTokens;
    b.outputTokens += s.outputTokens;
    b.cacheReadTokens += s.cacheReadTokens;
    b.cacheWriteTokens += s.cacheWriteTokens;
    b.reasoningTokens += s.reasoningTokens;
    b.costUsd += s.costUsd ?? 0;
    if (s.estimated) b.estimated++;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.opts.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  /**
   * One of the last few buckets added to, when the sample belongs to it: an agent's requests come
   * in runs of the same dimensions, and comparing them costs less than making the bucket's key.
   */
  private recentBucket(s: UsageSample, minute: number): UsageBucket | undefined {
    for (const b of this.recent) {
      if (
        b.minute === minute &&
        b.provider === s.provider &&
        b.connection === s.connection &&
        b.model === s.model &&
        b.combo === s.combo &&
        b.keyName === s.keyName &&
        b.session === s.session
      )
        return b;
    }
    return undefined;
  }

  /** The pending bucket of the sample's minute and dimensions; undefined when it is dropped. */
  private bucket(s: UsageSample, minute: number): UsageBucket | undefined {
    const key = `${minute}${SEP}${s.provider}${SEP}${s.connection}${SEP}${s.model}${SEP}${s.combo}${SEP}${s.keyName}${SEP}${s.session}`;
    let b = this.pending.get(key);
    if (!b) {
      if (this.closed || this.pending.size >= MAX_PENDING_BUCKETS) {
        this.dropped++;
        return undefined;
      }
      b = {
        minute,
        provider: s.provider,
        connection: s.connection,
        model: s.model,
        combo: s.combo,
        keyName: s.keyName,
        session: s.session,
        requests: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
        estimated: 0,
      };
      this.pending.set(key, b);
    }
    this.recent[this.nextRecent] = b;
    this.nextRecent = (this.nextRecent + 1) % RECENT_BUCKETS;
    return b;
  }

  /** Writes every pending sum now. Never throws: failures go to `onError` and are retried. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    // The buckets went with the batch: a sample from now on starts a bucket of its own.
    this.recent.length = 0;
    this.nextRecent = 0;
    try {
      this.opts.repo.add([...batch.values()]);
    } catch (err) {
      // Put the sums back under whatever arrived meanwhile, and try again later.
      for (const [key, b] of batch) {
        const newer = this.pending.get(key);
        if (newer) mergeInto(newer, b);
        else this.pending.set(key, b);
      }
      this.report(err);
      if (!this.closed) {
        this.timer = setTimeout(() => this.flush(), 5_000);
        this.timer.unref();
      }
      return;
    }
    this.maybePrune();
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.pruneTimer);
    if (this.timer) clearTimeout(this.timer);
  }

  private maybePrune(): void {
    const now = this.opts.now();
    if (now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    try {
      this.opts.repo.prune(now - (this.opts.retentionDays?.() ?? 90) * DAY_MS);
    } catch (err) {
      this.report(err);
    }
  }

  private report(err: unknown): void {
    try {
      this.opts.onError?.(err);
    } catch {
      // A failing error handler must not break the roll-up.
    }
  }
}

function mergeInto(into: UsageBucket, from: UsageBucket): void {
  into.requests += from.requests;
  into.errors += from.errors;
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.cacheReadTokens += from.cacheReadTokens;
  into.cacheWriteTokens += from.cacheWriteTokens;
  into.reasoningTokens += from.reasoningTokens;
  into.costUsd += from.costUsd;
  into.estimated += from.estimated;
}
