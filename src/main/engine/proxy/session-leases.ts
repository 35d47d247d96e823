// `POST /api/v1/session-leases` (RESILIENCE.md §10): authenticated with the managed client's
// gateway API key (Authorization: Bearer or x-api-key), not the admin token. Any HTTP client may
// call it; errors have the admin API's shape `{error: {code, message}}`.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApiKeyConfig } from '../../../shared/contract';
import type { Clock } from '../clock';
import type { LeaseService } from '../resilience/lease-service';
import { BodyAbortedError, BodyTooLargeError, readBody } from './body';
import { isJsonContentType } from './guard';

export const SESSION_LEASES_PATH = '/api/v1/session-leases';

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { error: { code, message } });
}

export interface SessionLeaseDeps {
  leases: LeaseService;
  clock: Clock;
  maxBodyBytes: number;
  /** True when gateway API keys are configured (otherwise leases cannot be bound to a key). */
  keysConfigured: boolean;
}

export async function handleSessionLeases(
  req: IncomingMessage,
  res: ServerResponse,
  key: GatewayApiKeyConfig | null,
  deps: SessionLeaseDeps,
): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return error(res, 405, 'method_not_allowed', `${SESSION_LEASES_PATH} accepts POST only`);
  }
  if (!key) {
    res.setHeader('connection', 'close');
    if (!deps.keysConfigured) {
      return error(
        res,
        403,
        'lease_scope_required',
        'exclusive leases need gateway API keys: add one with scope "lease:exclusive" and allowedConnections to gateway.apiKeys',
      );
    }
    return error(
      res,
      401,
      'invalid_api_key',
      "send one of this gateway's API keys (Authorization: Bearer <key> or x-api-key); the admin token is not a lease key",
    );
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    res.setHeader('connection', 'close');
    return error(res, 415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, deps.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      res.setHeader('connection', 'close');
      return error(res, 413, 'body_too_large', err.message);
    }
    if (err instanceof BodyAbortedError) return;
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    return error(
      res,
      400,
      'invalid_json',
      `request body is not valid JSON: ${(err as Error).message}`,
    );
  }
  const reply = deps.leases.handle(key, body, deps.clock.now());
  send(res, reply.status, reply.body, reply.headers);
}
