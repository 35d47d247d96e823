import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ClientFormat, GatewayApiKeyConfig } from '../../../shared/contract';
import type { Catalog } from '../config/catalog';
import type { Logger } from '../logger';
import { BodyAbortedError, BodyTooLargeError, readBody } from '../wire/body';
import { type GatewayError, sendError } from '../wire/client-errors';
import {
  checkHostAndOrigin,
  isJsonContentType,
  isLoopbackAddress,
  matchGatewayKey,
  presentedKey,
} from '../wire/guard';
import { sendAdminError } from '../wire/json-answer';
import { type Endpoint, findEndpoint, formatForUnknownPath } from './endpoints';
import { anthropicModelList, listModels, openAiModelList } from './models';
import { SESSION_LEASES_PATH } from './session-leases';

export interface ServerDeps {
  host: string;
  maxBodyBytes: number;
  apiKeys: readonly GatewayApiKeyConfig[];
  catalog(): Catalog;
  startedAt: number;
  log: Logger;
  /** `key` is the gateway API key the client presented (null when none are configured). */
  proxy(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: Endpoint,
    body: Buffer,
    key: GatewayApiKeyConfig | null,
  ): Promise<void>;
  /** `POST /api/v1/session-leases`, authenticated by gateway API key instead of the admin token. */
  sessionLeases?(
    req: IncomingMessage,
    res: ServerResponse,
    key: GatewayApiKeyConfig | null,
  ): Promise<void>;
  admin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Optional static handler for the browser dashboard under `/ui`. */
  ui?(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

export interface GatewayServer {
  server: Server;
  /** Proxy requests currently being handled (admin calls, such as the one asking, excluded). */
  inFlight(): number;
  /** Stops accepting, waits up to `graceMs` for in-flight requests, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

function refuse(res: ServerResponse, format: ClientFormat, err: GatewayError): void {
  // The request body may still be arriving; do not keep the socket around to read it.
  res.setHeader('connection', 'close');
  sendError(res, format, err);
}

/**
 * The gateway's HTTP front door: security checks common to every route (Host, Origin, client
 * identity, content type, body size), then `/v1/*` to the proxy pipeline and `/api/*` to the
 * admin API. Every refusal is answered in the caller's own API format.
 */
export function createGatewayServer(deps: ServerDeps): GatewayServer {
  let inFlight = 0;
  const sockets = new Set<Socket>();
  const idle = new Map<Socket, boolean>();
  let closing = false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const endpoint = findEndpoint(url.pathname);
    const format: ClientFormat =
      endpoint?.format ?? formatForUnknownPath(url.pathname, req.headers['anthropic-version']);

    const isAdmin = url.pathname === '/api' || url.pathname.startsWith('/api/');
    const hostProblem = checkHostAndOrigin(req.headers, { host: deps.host });
    if (hostProblem) {
      const code = /^(missing )?Host/.test(hostProblem) ? 'forbidden_host' : 'forbidden_origin';
      if (isAdmin) return sendAdminError(res, 403, code, hostProblem);
      return refuse(res, format, { status: 403, kind: 'permission', code, message: hostProblem });
    }
    if (deps.sessionLeases && url.pathname === SESSION_LEASES_PATH) {
      return deps.sessionLeases(req, res, matchGatewayKey(deps.apiKeys, presentedKey(req.headers)));
    }
    if (isAdmin) return deps.admin(req, res, url);
    // A proxy endpoint is never a dashboard path: skip the hook (and its await) for those.
    if (deps.ui && !endpoint && (await deps.ui(req, res, url))) return;

    // Proxy routes: identify the client first.
    let key: GatewayApiKeyConfig | null = null;
    if (deps.apiKeys.length > 0) {
      key = matchGatewayKey(deps.apiKeys, presentedKey(req.headers));
      if (!key) {
        return refuse(res, format, {
          status: 401,
          kind: 'authentication',
          code: 'invalid_api_key',
          message:
            'this gateway requires one of its API keys (Authorization: Bearer <key> or x-api-key)',
        });
      }
    } else if (!isLoopbackAddress(req.socket.remoteAddress)) {
      return refuse(res, format, {
        status: 403,
        kind: 'permission',
        code: 'loopback_only',
        message: 'no gateway API keys are configured, so only clients on this machine are served',
      });
    }

    if (req.method === 'GET' && /^(\/v1)?\/models\/?$/.test(url.pathname)) {
      const entries = listModels(deps.catalog());
      const body = JSON.stringify(
        req.headers['anthropic-version'] !== undefined
          ? anthropicModelList(entries, new Date(deps.startedAt).toISOString())
          : openAiModelList(entries, Math.floor(deps.startedAt / 1000)),
      );
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    if (!endpoint) {
      return refuse(res, format, {
        status: 404,
        kind: 'not_found',
        code: 'unknown_endpoint',
        message: `${req.method} ${url.pathname} is not an endpoint of this gateway (it serves POST /v1/chat/completions, /v1/responses, /v1/messages, /v1/messages/count_tokens and GET /v1/models)`,
      });
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return refuse(res, format, {
        status: 405,
        kind: 'invalid_request',
        code: 'method_not_allowed',
        message: `${url.pathname} accepts POST only`,
      });
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return refuse(res, format, {
        status: 415,
        kind: 'invalid_request',
        code: 'unsupported_media_type',
        message: `Content-Type must be application/json (got ${req.headers['content-type'] ?? 'none'})`,
      });
    }
    let body: Buffer;
    try {
      body = await readBody(req, deps.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        return refuse(res, format, {
          status: 413,
          kind: 'too_large',
          code: 'request_too_large',
          message: `request body is larger than the gateway limit of ${deps.maxBodyBytes} bytes (gateway.maxBodyBytes)`,
        });
      }
      if (err instanceof BodyAbortedError) return;
      throw err;
    }
    // Returned, not awaited: this frame is not kept alive for as long as a stream runs.
    return deps.proxy(req, res, endpoint, body, key);
  };

  const server = createServer({ noDelay: true, keepAlive: true, requestTimeout: 0 }, (req, res) => {
    const tracked = req.url?.startsWith('/v1/') ?? false;
    if (tracked) inFlight++;
    idle.set(req.socket, false);
    res.once('close', () => {
      if (tracked) inFlight--;
      idle.set(req.socket, true);
      if (closing) req.socket.end();
    });
    handle(req, res).catch((err: unknown) => {
      deps.log.error(
        `server: unhandled error on ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`,
      );
      if (!res.headersSent) {
        refuse(res, 'openai-chat', {
          status: 500,
          kind: 'internal',
          code: 'internal_error',
          message: 'internal error',
        });
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    idle.set(socket, true);
    socket.once('close', () => {
      sockets.delete(socket);
      idle.delete(socket);
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  return {
    server,
    inFlight: () => inFlight,
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
