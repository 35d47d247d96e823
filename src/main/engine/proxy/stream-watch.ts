import type { ClientFormat } from '../../../shared/contract';
import {
  ContentIdleFeed,
  idleVerdict,
  ThroughputWatchdog,
  WatchdogFeed,
} from '../resilience/stream';
import type { ThroughputWatchdogOptions } from '../settings/resilience-defaults';
import { ContentIdleError } from '../upstream/attempt';
import type { BodyTap, UpstreamBody } from '../upstream/upstream-body';

/** Errors a relayed stream is destroyed with when the throughput watchdog trips. */
export class ThroughputTripError extends Error {
  readonly code = 'BW_THROUGHPUT_WATCHDOG';
}

/** `errorClass` of a request whose stream the watchdog ended (not a provider failure, §1). */
export const WATCHDOG_ERROR_CLASS = 'throughput_watchdog';

/**
 * Events held back before the first useful one, at most: past this a stream is not a
 * heartbeat-only one and is let through.
 */
export const HOLD_LIMIT_BYTES = 64 * 1024;

/**
 * The relay's side of the watchdog: feeds it every upstream chunk, checks it on every chunk and
 * on a timer (a stream that trickles slowly still gets judged on time), and destroys the upstream
 * body with a ThroughputTripError on a trip. `stop()` clears the timer; safe to call twice.
 */
export class StreamWatch {
  private readonly feed: WatchdogFeed;
  private readonly watchdog: ThroughputWatchdog;
  private timer: NodeJS.Timeout | null;
  tripped: ThroughputTripError | null = null;

  constructor(
    format: ClientFormat,
    options: ThroughputWatchdogOptions,
    private readonly now: () => number,
    private readonly body: { destroy(err?: Error): unknown; destroyed: boolean },
  ) {
    this.watchdog = new ThroughputWatchdog(options, now());
    this.feed = new WatchdogFeed(format, this.watchdog);
    const tick = Math.min(1_000, Math.max(25, Math.floor(this.watchdog.spanMs / 10)));
    this.timer = setInterval(() => this.check(), tick);
    this.timer.unref();
  }

  /** Whether a useful event (text, tool call, reasoning, error) has been seen. */
  get committed(): boolean {
    return this.feed.committed;
  }

  push(chunk: Uint8Array): void {
    this.feed.push(chunk, this.now());
    this.check();
  }

  private check(): void {
    if (this.tripped) return;
    const verdict = this.watchdog.check(this.now());
    if (verdict.kind === 'ok') return;
    this.tripped = new ThroughputTripError(`throughput watchdog: ${verdict.reason}`);
    this.stop();
    if (!this.body.destroyed) this.body.destroy(this.tripped);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * The upstream idle timeout for event streams that heartbeats do not reset (§6): undici's body
 * timeout still ends a silent stream; this one ends a stream whose bytes carry no content for
 * `idleMs`. One timer per stream, re-armed each period (an eighth of the timeout, 25 ms to 5 s),
 * so a trip comes at most one period late and never early. Set as the body's tap, it runs from
 * the answer's head on, through the first-event peek and the relay, until the body is over.
 */
export class ContentIdleWatch implements BodyTap {
  private readonly feed: ContentIdleFeed;
  private readonly periodMs: number;
  private lastContentAt: number;
  private timer: NodeJS.Timeout | null;

  constructor(
    format: ClientFormat,
    private readonly idleMs: number,
    private readonly now: () => number,
    private readonly body: UpstreamBody,
  ) {
    this.feed = new ContentIdleFeed(format);
    this.periodMs = Math.min(5_000, Math.max(25, Math.floor(idleMs / 8)));
    this.lastContentAt = now();
    this.timer = setTimeout(this.tick, this.periodMs);
    this.timer.unref();
  }

  chunk(chunk: Buffer): void {
    this.feed.push(chunk);
  }

  settled(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly tick = (): void => {
    if (!this.timer) return;
    const verdict = idleVerdict(this.lastContentAt, this.feed.period(), this.now(), this.idleMs);
    this.lastContentAt = verdict.lastContentAt;
    if (verdict.idle) {
      this.timer = null;
      this.body.destroy(new ContentIdleError(this.idleMs));
      return;
    }
    this.timer.refresh();
  };
}
