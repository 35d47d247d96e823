// `POST /api/v1/session-leases` (RESILIENCE.md §10): authenticated with the managed client's
// gateway API key (Authorization: Bearer or x-api-key), not the admin token. Any HTTP client may
// call it; errors have the admin API's shape `{error: {code, message}}`.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApiKeyConfig } from '../../../shared/contract';
import type { Clock } from '../clock';
import {
  canHoldLeases,
  type LeaseAction,
  type LeaseReply,
  type LeaseRequest,
  type LeaseService,
  OWNER_TOKEN_PATTERN,
  scopeRefusal,
} from '../resilience/leases';
import { BodyAbortedError, BodyTooLargeError, readBody } from '../wire/body';
import { isJsonContentType } from '../wire/guard';
import { sendAdminError, sendJson } from '../wire/json-answer';

export const SESSION_LEASES_PATH = '/api/v1/session-leases';

const ACTIONS: readonly LeaseAction[] = ['acquire', 'renew', 'release', 'status'];
const FIELDS = ['action', 'ttlMs', 'owner', 'generation', 'model'];

type Parsed = { ok: true; request: LeaseRequest } | { ok: false; code: string; message: string };

function bad(code: string, message: string): Parsed {
  return { ok: false, code, message };
}

/** Checks the JSON body of the endpoint field by field, naming what is wrong. */
export function parseLeaseRequest(body: unknown): Parsed {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return bad('invalid_body', 'the body must be a JSON object such as {"action": "acquire"}');
  }
  const o = body as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) {
    return bad(
      'invalid_body',
      `unknown field(s) ${unknown.join(', ')}; allowed: ${FIELDS.join(', ')}`,
    );
  }
  if (typeof o.action !== 'string' || !ACTIONS.includes(o.action as LeaseAction)) {
    return bad('invalid_action', `action must be one of ${ACTIONS.join(', ')}`);
  }
  const request: LeaseRequest = { action: o.action as LeaseAction };
  if (o.ttlMs !== undefined) {
    if (typeof o.ttlMs !== 'number' || !Number.isFinite(o.ttlMs) || o.ttlMs <= 0) {
      return bad(
        'invalid_ttl',
        'ttlMs must be a positive number of milliseconds (clamped to 1000–1800000)',
      );
    }
    request.ttlMs = o.ttlMs;
  }
  if (o.owner !== undefined) {
    if (typeof o.owner !== 'string' || !OWNER_TOKEN_PATTERN.test(o.owner)) {
      return bad('invalid_owner', 'owner must be the bwl_… token an acquire returned');
    }
    request.owner = o.owner;
  }
  if (o.generation !== undefined) {
    if (
      typeof o.generation !== 'number' ||
      !Number.isSafeInteger(o.generation) ||
      o.generation < 1
    ) {
      return bad('invalid_generation', 'generation must be a positive integer');
    }
    request.generation = o.generation;
  }
  if (o.model !== undefined) {
    if (typeof o.model !== 'string' || o.model.trim() === '') {
      return bad('invalid_model', 'model must be a non-empty string');
    }
    request.model = o.model;
  }
  if (request.action !== 'acquire' && request.owner === undefined) {
    return bad('missing_owner', `${request.action} needs the owner token an acquire returned`);
  }
  if (
    (request.action === 'renew' || request.action === 'release') &&
    request.generation === undefined
  ) {
    return bad('missing_generation', `${request.action} needs the lease's generation`);
  }
  return { ok: true, request };
}

/**
 * The endpoint's answer to a parsed JSON body: a key without the lease scope is refused before
 * its body is looked at, then a malformed body, then the action runs.
 */
export async function answerLeaseRequest(
  leases: LeaseService,
  key: GatewayApiKeyConfig | null,
  body: unknown,
  now: number,
): Promise<LeaseReply> {
  if (!canHoldLeases(key)) return scopeRefusal(key);
  const parsed = parseLeaseRequest(body);
  if (!parsed.ok) {
    return {
      status: 400,
      body: { error: { code: parsed.code, message: parsed.message } },
      headers: {},
    };
  }
  return leases.handleShared(key, parsed.request, now);
}

export interface SessionLeaseDeps {
  leases: LeaseService;
  clock: Clock;
  maxBodyBytes: number;
  /** Whether any gateway API key is live, from the config or the store (leases bind to a key). */
  keysConfigured(): boolean;
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
    if (!deps.keysConfigured()) {
      return sendAdminError(
        res,
        403,
        'lease_scope_required',
        'exclusive leases need gateway API keys: create one with scope "lease:exclusive" and allowedConnections (POST /api/keys, breakwater keys create, or gateway.apiKeys)',
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
  const reply = await answerLeaseRequest(deps.leases, key, body, deps.clock.now());
  sendJson(res, reply.status, reply.body, reply.headers);
}
