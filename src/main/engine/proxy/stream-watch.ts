import type { ClientFormat } from '../../../shared/contract';
import { ThroughputWatchdog, WatchdogFeed } from '../resilience/throughput-watchdog';
import type { ThroughputWatchdogOptions } from '../settings/resilience-defaults';

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
