import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { GatewayApiKeyConfig } from '../../../shared/contract';
import { RecentValues } from '../bounded-map';
import type { Logger } from '../logger';
import { type GatewayError, sendError } from '../wire/client-errors';
import { checkHostAndOrigin, presentedKey } from '../wire/guard';
import { sendAdminError } from '../wire/json-answer';
import {
  answerStarted,
  type ClientLimits,
  clientErrorFor,
  DEFAULT_CLIENT_LIMITS,
  endWithError,
  SocketsPerAddress,
} from './client-socket';
import { formatForUnknownPath, MAX_URL_LENGTH } from './endpoints';
import { hostRefusalCode } from './pipeline/host';
import { SESSION_LEASES_PATH } from './session-leases';

export interface ServerDeps {
  host: string;
  /** The live gateway key (config file or store) whose secret was presented, or null. */
  matchKey(presented: string | null): GatewayApiKeyConfig | null;
  log: Logger;
  /** Every path but `/api`: the proxy's front door and request stages (proxy/pipeline/). */
  proxy(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** `POST /api/v1/session-leases`, authenticated by gateway API key instead of the admin token. */
  sessionLeases?(
    req: IncomingMessage,
    res: ServerResponse,
    key: GatewayApiKeyConfig | null,
  ): Promise<void>;
  admin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Timeouts for sending a request and sockets per address (defaults: DEFAULT_CLIENT_LIMITS). */
  limits?: Partial<ClientLimits>;
}

export interface GatewayServer {
  /** The current listener (another one after a move). */
  readonly server: Server;
  /** Proxy requests currently being handled (admin calls, such as the one asking, excluded). */
  inFlight(): number;
  /**
   * Listens on `host:port` and answers the bound port. While serving, a new listener takes over
   * once it is up: the old one stops accepting, its idle connections close and busy ones close
   * after their answer. A failure (port taken) leaves the current listener as it was.
   */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, waits up to `graceMs` for in-flight requests, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/**
 * The gateway's HTTP server: `/api/*` to the admin API (behind the same Host and Origin check
 * as the proxy), every other path to the proxy pipeline, whose front door checks the rest.
 */
export function createGatewayServer(deps: ServerDeps): GatewayServer {
  let inFlight = 0;
  const sockets = new Set<Socket>();
  const idle = new Map<Socket, boolean>();
  /** Each socket's bound on its first request's header phase, cleared when the request is in. */
  const headerTimers = new Map<Socket, NodeJS.Timeout>();
  let closing = false;

  const targets = new RecentValues(KEPT_TARGETS, requestTarget);

  // Not an async function: the proxy's own promise is passed on, without a promise of this
  // function's that would take its result over in two more microtasks per request.
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> | undefined => {
    if ((req.url?.length ?? 0) > MAX_URL_LENGTH) return void closeWithError(req, res, LONG_TARGET);
    const target = req.url ?? '/';
    // A query may carry a key (Gemini's `?key=`): such targets are parsed each time, never kept.
    const url = target.includes('?') ? requestTarget(target) : targets.get(target);
    if (!url) return void closeWithError(req, res, NOT_A_PATH);
    const path = url.pathname;
    if (path !== '/api' && !path.startsWith('/api/')) return deps.proxy(req, res, url);
    const hostProblem = checkHostAndOrigin(req.headers, { host: deps.host });
    if (hostProblem) {
      return void sendAdminError(res, 403, hostRefusalCode(hostProblem), hostProblem);
    }
    if (deps.sessionLeases && path === SESSION_LEASES_PATH) {
      return deps.sessionLeases(req, res, deps.matchKey(presentedKey(req.headers)));
    }
    return deps.admin(req, res, url);
  };

  const limits = { ...DEFAULT_CLIENT_LIMITS, ...deps.limits };
  const perAddress = new SocketsPerAddress(limits.socketsPerAddress);
  const options = {
    noDelay: true,
    keepAlive: true,
    headersTimeout: limits.headersTimeoutMs,
    // Bounds receiving the request only: a long streamed answer is not cut.
    requestTimeout: limits.requestTimeoutMs,
    // Node checks for expired requests this often (30 s by default, doubling the bound).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 4),
  };
  const makeServer = (): Server => {
    const server = createServer(options, (req, res) => {
      // Proxied requests however they are spelt (`/v1/…`, Gemini's `/v1beta/…`, `/messages`):
      // a graceful stop waits for them, not for the admin API or the dashboard.
      const tracked = !(req.url?.startsWith('/api/') || req.url?.startsWith('/ui'));
      if (tracked) inFlight++;
      idle.set(req.socket, false);
      clearTimeout(headerTimers.get(req.socket));
      res.once('close', () => {
        if (tracked) inFlight--;
        // A socket that closed under its answer is gone from `sockets` already: putting it back
        // in `idle` would keep it, its request and its answer for the life of the server.
        if (sockets.has(req.socket)) idle.set(req.socket, true);
        if (closing || retired.has(server)) req.socket.end();
      });
      const unhandled = (err: unknown) => answerUnhandled(deps.log, req, res, err);
      try {
        handle(req, res)?.catch(unhandled);
      } catch (err) {
        unhandled(err);
      }
    });
    server.on('connection', (socket: Socket) => {
      if (!perAddress.admit(socket)) {
        endWithError(socket, {
          status: 503,
          kind: 'overloaded',
          code: 'too_many_connections',
          message: `this address already holds ${limits.socketsPerAddress} connections to the gateway`,
        });
        return;
      }
      sockets.add(socket);
      idle.set(socket, true);
      headerTimers.set(socket, cutSlowHeaders(socket, limits.headersTimeoutMs));
      socket.once('close', () => {
        sockets.delete(socket);
        idle.delete(socket);
        clearTimeout(headerTimers.get(socket));
        headerTimers.delete(socket);
      });
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (socket.writable && !answerStarted(socket)) endWithError(socket, clientErrorFor(err.code));
      else socket.destroy();
    });
    return server;
  };
  // Listeners replaced by a move: they close each connection once its answer is done.
  const retired = new WeakSet<Server>();
  let server = makeServer();

  return {
    get server() {
      return server;
    },
    inFlight: () => inFlight,
    async listen(host, port) {
      if (!server.listening) {
        await bind(server, host, port);
        return portOf(server, port);
      }
      const old = server;
      const retire = () => {
        retired.add(old);
        old.close();
        old.closeIdleConnections();
      };
      try {
        server = await bind(makeServer(), host, port);
      } catch (err) {
        const was = old.address() as AddressInfo;
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || was.port !== port) throw err;
        // Another host on the same port: the OS gives the port once, so the current listener
        // lets go first, and comes back if the new address cannot be had either.
        retire();
        try {
          server = await bind(makeServer(), host, port);
        } catch (again) {
          server = await bind(makeServer(), was.address, was.port);
          throw again;
        }
        return port;
      }
      retire();
      return portOf(server, port);
    },
    async close(graceMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive sockets would hold close() open; busy ones finish their response first.
      for (const socket of sockets) if (idle.get(socket)) socket.end();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/**
 * Cuts a socket whose first request's headers are not in `ms` after it connected. Node's own
 * `headersTimeout` check runs on a shared interval, counts from the first byte, and was seen to
 * leave sockets that arrived together open for good (issue 27); this timer is the socket's own.
 */
function cutSlowHeaders(socket: Socket, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    if (socket.writable && !answerStarted(socket)) {
      endWithError(socket, clientErrorFor('ERR_HTTP_REQUEST_TIMEOUT'));
    }
    // A client that holds its half of the connection open must not keep it.
    socket.destroySoon();
  }, ms);
  timer.unref();
  return timer;
}

function bind(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function portOf(server: Server, asked: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : asked;
}

/**
 * The request target as a URL. Only a path is accepted (origin form): resolved against a base,
 * `//x` would name a host and `//` throw, so the path is appended to the base instead.
 */
function requestTarget(target: string): URL | null {
  if (!target.startsWith('/')) return null;
  try {
    return new URL(`http://gateway${target}`);
  } catch {
    return null;
  }
}

/**
 * How many parsed request targets a server keeps: an agent uses a handful of paths, and parsing
 * one cost about as much as the JSON.parse of a short request's body. Nothing on the request
 * path writes to the URL it is handed, so one serves every request with that target.
 */
const KEPT_TARGETS = 64;

const LONG_TARGET: GatewayError = {
  status: 414,
  kind: 'invalid_request',
  code: 'uri_too_long',
  message: `the request target is longer than ${MAX_URL_LENGTH} characters`,
};

const NOT_A_PATH: GatewayError = {
  status: 400,
  kind: 'invalid_request',
  code: 'invalid_request_target',
  message: 'the request target must be a path starting with /',
};

const INTERNAL_ERROR: GatewayError = {
  status: 500,
  kind: 'internal',
  code: 'internal_error',
  message: 'internal error',
};

/** An error no handler answered: logged by path alone (a query may hold a key), then a 500. */
function answerUnhandled(
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
): void {
  log.error(
    `server: unhandled error on ${req.method} ${targetForLog(req.url)}: ${(err as Error).stack ?? String(err)}`,
  );
  if (res.headersSent) res.destroy();
  else closeWithError(req, res, INTERNAL_ERROR);
}

/**
 * An error in the format the path suggests, the connection closed after it. The target is
 * neither parsed nor echoed: a refused one may be anything, and nothing of it is looked at but
 * its length and how its path starts.
 */
function closeWithError(req: IncomingMessage, res: ServerResponse, err: GatewayError): void {
  res.setHeader('connection', 'close');
  sendError(res, formatForUnknownPath(req.url ?? '', req.headers['anthropic-version']), err);
}

/**
 * A request target as the log may show it: the path only, shortened. The query can carry a
 * gateway key (Gemini clients send `?key=`), and a target may be kilobytes long.
 */
export function targetForLog(target: string | undefined): string {
  const path = (target ?? '').split('?', 1)[0]!;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
