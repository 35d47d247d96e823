// `POST /api/v1/session-leases` (RESILIENCE.md §10): authenticated with the managed client's
// gateway API key (Authorization: Bearer or x-api-key), not the admin token. Any HTTP client may
// call it; errors have the admin API's shape `{error: {code, message}}`.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApiKeyConfig } from '../../../shared/contract';
import type { Clock } from '../clock';
import type { LeaseService } from '../resilience/lease-service';
import { BodyAbortedError, BodyTooLargeError, readBody } from '../wire/body';
import { isJsonContentType } from '../wire/guard';
import { sendAdminError, sendJson } from '../wire/json-answer';

export const SESSION_LEASES_PATH = '/api/v1/session-leases';

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
    return sendAdminError(
      res,
      405,
      'method_not_allowed',
      `${SESSION_LEASES_PATH} accepts POST only`,
    );
  }
  if (!key) {
    res.setHeader('connection', 'close');
    if (!deps.keysConfigured) {
      return sendAdminError(
        res,
        403,
        'lease_scope_required',
        'exclusive leases need gateway API keys: add one with scope "lease:exclusive" and allowedConnections to gateway.apiKeys',
      );
    }
    return sendAdminError(
      res,
      401,
      'invalid_api_key',
      "send one of this gateway's API keys (Authorization: Bearer <key> or x-api-key); the admin token is not a lease key",
    );
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    res.setHeader('connection', 'close');
    return sendAdminError(
      res,
      415,
      'unsupported_media_type',
      'Content-Type must be application/json',
    );
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, deps.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      res.setHeader('connection', 'close');
      return sendAdminError(res, 413, 'body_too_large', err.message);
    }
    if (err instanceof BodyAbortedError) return;
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    return sendAdminError(
      res,
      400,
      'invalid_json',
      `request body is not valid JSON: ${(err as Error).message}`,
    );
  }
  const reply = deps.leases.handle(key, body, deps.clock.now());
  sendJson(res, reply.status, reply.body, reply.headers);
}
