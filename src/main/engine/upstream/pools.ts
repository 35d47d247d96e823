import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
// undici's own modules, not its index: the index also loads fetch, WebSocket, cookies and
// caching with their web streams, about 75 ms of a 300 ms start here, none of which a pool
// needs. The paths are checked against the index's exports by tests/unit/undici-imports.test.ts.
import buildConnector from 'undici/lib/core/connect.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import type { ProviderFormat, UpstreamTimeouts } from '../../../shared/contract';
import type { CatalogProvider } from '../config/catalog';
import type { OutgoingBody } from '../wire/body-pieces';
import { type BodySource, UpstreamBody } from './upstream-body';

export interface UpstreamCall {
  provider: CatalogProvider;
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  /** A large body comes in pieces: undici writes any iterable (its types list only a few). */
  body: OutgoingBody;
  timeouts: UpstreamTimeouts;
}

/** An upstream answer once its head has arrived; the body follows. */
export interface UpstreamResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: UpstreamBody;
}

/**
 * One upstream call on undici's dispatch API: the handler that receives the answer, the answer
 * itself, and the way to cancel it. `request()`'s stream body, abort-signal listener and async
 * resource cost about a third of a pass-through's CPU per request (measured in docs/performance.md);
 * here the chunks go from the socket to the relay's reader with nothing in between.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler, BodySource, UpstreamResponse {
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  /** Made when the head arrives; nobody reads it before `response` settles. */
  body!: UpstreamBody;
  /** Settles when the head arrives (with this exchange) or the call fails before it. */
  readonly response: Promise<UpstreamResponse>;
  private controller: Dispatcher.DispatchController | null = null;
  private reason: Error | null = null;
  private answered!: (res: UpstreamResponse) => void;
  private failed!: (err: Error) => void;
  private headed = false;
  private finished = false;
  /** The pool's count of calls waiting for a connection, while this one does. */
  private waitingIn: PoolEntry | null = null;

  constructor() {
    this.response = new Promise<UpstreamResponse>((resolve, reject) => {
      this.answered = resolve;
      this.failed = reject;
    });
  }

  /** Cancels the call; before the head the response rejects with `reason`, after it the body fails. */
  abort(reason: Error): void {
    if (this.reason || this.finished) return;
    this.reason = reason;
    this.stopWaiting();
    // Before undici started the request, the reason waits for onRequestStart.
    this.controller?.abort(reason);
  }

  pause(): void {
    this.controller?.pause();
  }

  resume(): void {
    this.controller?.resume();
  }

  /** Counted among the pool's calls that wait for a connection until it starts or ends. */
  waitIn(entry: PoolEntry): void {
    entry.waiting++;
    this.waitingIn = entry;
  }

  private stopWaiting(): void {
    if (this.waitingIn) this.waitingIn.waiting--;
    this.waitingIn = null;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.stopWaiting();
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // undici's adapter from its older handler API keeps the head's raw bytes (a Buffer per
    // name and value) on the controller for as long as the call runs; the parsed copy is all
    // anyone reads, and for a stream in flight those 15 Buffers are a twelfth of its heap.
    (controller as { rawHeaders?: unknown }).rawHeaders = null;
    // 1xx (100 Continue, 103 Early Hints) are not the answer.
    if (statusCode < 200 || this.headed) return;
    this.headed = true;
    this.statusCode = statusCode;
    this.headers = headers;
    this.body = new UpstreamBody(this);
    this.answered(this);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body.push(chunk);
  }

  onResponseEnd(): void {
    this.finished = true;
    this.body.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.finished = true;
    this.stopWaiting();
    if (this.headed) this.body.fail(err);
    else this.failed(err);
  }
}

interface PoolEntry {
  origin: string;
  connectMs: number;
  pool: Pool;
  /** Local address the pool's sockets last left from. */
  egress: string | null;
  /** Calls dispatched that have not started (no socket yet) and are not cancelled. */
  waiting: number;
}

/** Refuses a connection nobody waits for; undici then drops the cancelled calls it queued. */
class NoCallWaitsError extends Error {
  readonly code = 'BREAKWATER_NO_CALL_WAITS';
  constructor() {
    super('no call waits for this connection');
  }
}

/**
 * Keep-alive connection pools, one per provider origin, reused across requests. A provider
 * whose base URL or connect timeout changes gets a fresh pool; the old one drains.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, PoolEntry>();
  /** Base URLs parsed once: origin (the pool) and path prefix (every request's path). */
  private readonly bases = new Map<string, { origin: string; prefix: string }>();

  /**
   * No cap on sockets per origin by default: an LLM stream holds its socket for minutes, so a
   * cap here would silently queue agents behind each other (128 streams in flight used to stall the
   * 129th before it was sent). Concurrency is limited per connection by the resilience gates,
   * which answer with a reason instead of an invisible wait.
   */
  constructor(private readonly connectionsPerOrigin: number | null = null) {}

  private baseOf(baseUrl: string): { origin: string; prefix: string } {
    let base = this.bases.get(baseUrl);
    if (!base) {
      const url = new URL(baseUrl);
      base = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
      this.bases.set(baseUrl, base);
    }
    return base;
  }

  private entryFor(provider: CatalogProvider, origin: string, connectMs: number): PoolEntry {
    const existing = this.pools.get(provider.id);
    if (existing?.origin === origin && existing.connectMs === connectMs) return existing;
    if (existing) void existing.pool.close().catch(() => {});
    const connector = buildConnector({ timeout: connectMs });
    const entry: PoolEntry = {
      origin,
      connectMs,
      pool: undefined as unknown as Pool,
      egress: null,
      waiting: 0,
    };
    entry.pool = new Pool(origin, {
      connections: this.connectionsPerOrigin,
      // Wraps the default connector to learn the local address each socket leaves from: the
      // egress IP the request log records per connection.
      //
      // It also opens none for a call already cancelled: undici puts a call aborted mid-answer
      // back in its queue and connects again for it before it notices (nodejs/undici#5845), so
      // 500 streams aborted at once used to open 500 sockets that nobody used.
      connect: (opts, callback) => {
        if (entry.waiting === 0) return callback(new NoCallWaitsError(), null);
        connector(opts, (err, socket) => {
          if (socket?.localAddress) entry.egress = socket.localAddress;
          callback(err, socket as never);
        });
      },
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
    this.pools.set(provider.id, entry);
    return entry;
  }

  /** The local address the provider's pool last connected from, if it has connected. */
  egressOf(providerId: string): string | null {
    return this.pools.get(providerId)?.egress ?? null;
  }

  /** Starts a call; `response` settles when its head arrives. */
  request(call: UpstreamCall): UpstreamExchange {
    const { origin, prefix } = this.baseOf(call.provider.baseUrl);
    const exchange = new UpstreamExchange();
    const entry = this.entryFor(call.provider, origin, call.timeouts.connectMs);
    // Counted before the dispatch: undici may ask for a connection within it.
    exchange.waitIn(entry);
    entry.pool.dispatch(
      {
        method: 'POST',
        path: `${prefix}${call.path}`,
        headers: call.headers,
        body: call.body as Buffer,
        headersTimeout: call.timeouts.firstByteMs,
        bodyTimeout: call.timeouts.idleMs,
      },
      exchange,
    );
    return exchange;
  }

  /** Drops pools of providers that no longer exist. */
  retain(providerIds: Iterable<string>): void {
    // Keyed by the URL itself, so nothing in it goes stale; clearing drops URLs no longer used.
    this.bases.clear();
    const keep = new Set(providerIds);
    for (const [id, entry] of this.pools) {
      if (!keep.has(id)) {
        this.pools.delete(id);
        void entry.pool.close().catch(() => {});
      }
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.destroy().catch(() => {})));
  }
}

/** Path a provider of the given format serves each client endpoint at. */
export function upstreamPath(providerFormat: ProviderFormat, endpoint: string): string {
  if (providerFormat === 'anthropic') return endpoint; // `/v1/messages`, `/v1/messages/count_tokens`
  // baseUrl already ends in /v1 (a prefix test, not a regular expression: every call asks)
  return endpoint.startsWith('/v1') ? endpoint.slice(3) : endpoint;
}
