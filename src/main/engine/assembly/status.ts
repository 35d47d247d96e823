import type { Clock } from '../clock';
import type { EventBus } from '../events';
import type { Logger } from '../logger';

/** The gateway's own run state: when it started, what it served, and the operator's pause. */
export interface GatewayStatus {
  readonly startedAt: number;
  /** Requests in flight per connection; the pipeline keeps it up to date. */
  readonly inFlight: Map<string, number>;
  readonly requestsTotal: number;
  readonly errorsTotal: number;
  /** True while the proxy answers 503 in the client's format; admin API and /ui keep working. */
  readonly paused: boolean;
  /** Emits `gateway.paused` / `gateway.resumed` on a change. */
  setPaused(next: boolean): void;
  /** Counts one finished request with its HTTP status. */
  count(status: number): void;
}

export function gatewayStatus(clock: Clock, log: Logger, events: EventBus): GatewayStatus {
  const startedAt = clock.now();
  let requestsTotal = 0;
  let errorsTotal = 0;
  let paused = false;
  return {
    startedAt,
    inFlight: new Map<string, number>(),
    get requestsTotal() {
      return requestsTotal;
    },
    get errorsTotal() {
      return errorsTotal;
    },
    get paused() {
      return paused;
    },
    setPaused(next) {
      if (next === paused) return;
      paused = next;
      log.info(paused ? 'paused: proxy requests get 503 until resumed' : 'resumed');
      events.emit({ type: paused ? 'gateway.paused' : 'gateway.resumed', at: clock.now() });
    },
    count(status) {
      requestsTotal++;
      if (status >= 400) errorsTotal++;
    },
  };
}
