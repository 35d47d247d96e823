import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineEvent, Snapshot } from '../../../shared/contract';
import { readBody } from '../wire/body';
import { checkAdminToken, isJsonContentType } from '../wire/guard';
import { sendAdminError, sendJson } from '../wire/json-answer';
import { agentRoutes } from './agents';
import { streamEvents } from './event-stream';
import {
  createKey,
  type KeyOperations,
  listKeys,
  revokeKey,
  rotateKey,
  updateKey,
  usageQueryOf,
  usageReport,
} from './keys';
import { learnedFixRoutes } from './learned-fixes';
import {
  AdminError,
  type AdminOperations,
  adminError,
  recentLogs,
  releaseLease,
  setGatewayAddress,
  setPaused,
  testConnection,
} from './operations';
import { NotFoundError } from './service';
import { setupRoutes } from './setup';

export interface AdminDeps extends AdminOperations {
  /** Gateway keys and usage (`/api/keys`, `/api/usage`). */
  accounts: KeyOperations;
  token: string;
  maxBodyBytes: number;
  snapshot(): Snapshot;
  health(): unknown;
  onEvent(listener: (e: EngineEvent) => void): () => void;
}

async function jsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new AdminError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const raw = await readBody(req, limit);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new AdminError(
      400,
      'invalid_json',
      `request body is not valid JSON: ${(err as Error).message}`,
    );
  }
}

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: string[],
  url: URL,
) => Promise<void> | void;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

function routes(deps: AdminDeps): Route[] {
  const s = deps.service;
  const body = (req: IncomingMessage) => jsonBody(req, deps.maxBodyBytes);
  // An action whose body is optional (e.g. reset all breakers): no body means `{}`.
  const optionalBody = (req: IncomingMessage): Promise<unknown> =>
    req.headers['content-length'] === '0' ||
    (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
      ? Promise.resolve({})
      : body(req);
  const id = (params: string[]) => {
    try {
      return decodeURIComponent(params[0]!);
    } catch {
      throw new AdminError(400, 'invalid_path', `malformed escape in ${params[0]}`);
    }
  };
  return [
    ...learnedFixRoutes(deps.learnedFixes),
    ...setupRoutes(deps, body),
    ...agentRoutes(deps, optionalBody, id),
    {
      method: 'GET',
      pattern: /^\/api\/state$/,
      handler: (_q, r) => sendJson(r, 200, deps.snapshot()),
    },
    { method: 'GET', pattern: /^\/api\/events$/, handler: (q, r) => streamEvents(q, r, deps) },
    {
      method: 'GET',
      pattern: /^\/api\/logs$/,
      handler: (_q, r, _p, url) => sendJson(r, 200, recentLogs(s, url.searchParams)),
    },
    {
      method: 'GET',
      pattern: /^\/api\/providers$/,
      handler: (_q, r) => sendJson(r, 200, s.listProviders()),
    },
    {
      method: 'POST',
      pattern: /^\/api\/providers$/,
      handler: async (q, r) => sendJson(r, 201, s.saveProvider(await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/providers\/([^/]+)$/,
      handler: (_q, r, p) => sendJson(r, 200, s.getProvider(id(p))),
    },
    {
      method: 'PUT',
      pattern: /^\/api\/providers\/([^/]+)$/,
      handler: async (q, r, p) => {
        const input = await body(q);
        const providerId = id(p);
        if (
          typeof input === 'object' &&
          input !== null &&
          'id' in input &&
          (input as { id: unknown }).id !== providerId
        ) {
          throw new AdminError(
            400,
            'id_mismatch',
            `body id does not match the URL (${providerId})`,
            'id',
          );
        }
        s.getProvider(providerId);
        sendJson(r, 200, s.saveProvider({ ...(input as object), id: providerId }));
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/providers\/([^/]+)$/,
      handler: (_q, r, p) => {
        s.deleteProvider(id(p));
        sendJson(r, 200, { deleted: id(p) });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/providers\/([^/]+)\/connections$/,
      handler: async (q, r, p) => sendJson(r, 201, s.saveConnection(id(p), await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/connections$/,
      handler: (_q, r) => sendJson(r, 200, s.listConnections()),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/connections\/([^/]+)$/,
      handler: (_q, r, p) => {
        s.deleteConnection(id(p));
        sendJson(r, 200, { deleted: id(p) });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/connections\/([^/]+)\/test$/,
      handler: async (_q, r, p) => sendJson(r, 200, await testConnection(deps, id(p))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/combos$/,
      handler: (_q, r) => sendJson(r, 200, s.listCombos()),
    },
    {
      method: 'POST',
      pattern: /^\/api\/combos$/,
      handler: async (q, r) => sendJson(r, 201, s.saveCombo(await body(q))),
    },
    {
      method: 'PUT',
      pattern: /^\/api\/combos\/([^/]+)$/,
      handler: async (q, r, p) => {
        // Like PUT on a provider: it replaces an existing combo; POST creates one.
        const input = await body(q);
        const name = id(p);
        if (
          typeof input === 'object' &&
          input !== null &&
          'name' in input &&
          (input as { name: unknown }).name !== name
        ) {
          throw new AdminError(
            400,
            'id_mismatch',
            `body name does not match the URL (${name})`,
            'name',
          );
        }
        if (!s.listCombos().some((c) => c.name === name))
          throw new NotFoundError(`combo "${name}"`);
        sendJson(r, 200, s.saveCombo({ ...(input as object), name }));
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/combos\/([^/]+)$/,
      handler: (_q, r, p) => {
        s.deleteCombo(id(p));
        sendJson(r, 200, { deleted: id(p) });
      },
    },
    ...(['pause', 'resume'] as const).map(
      (action): Route => ({
        method: 'POST',
        pattern: new RegExp(`^/api/gateway/${action}$`),
        handler: (_q, r) => sendJson(r, 200, setPaused(deps, action === 'pause')),
      }),
    ),
    {
      method: 'POST',
      pattern: /^\/api\/gateway\/address$/,
      handler: async (q, r) => sendJson(r, 200, await setGatewayAddress(deps, await body(q))),
    },
    {
      method: 'POST',
      pattern: /^\/api\/leases\/release$/,
      handler: async (q, r) => sendJson(r, 200, releaseLease(deps, await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/monitoring\/health$/,
      handler: (_q, r) => sendJson(r, 200, s.monitoringHealth()),
    },
    {
      method: 'POST',
      pattern: /^\/api\/resilience\/reset$/,
      handler: async (q, r) => sendJson(r, 200, s.resetBreakers(await optionalBody(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/resilience\/model-cooldowns$/,
      handler: (_q, r) => sendJson(r, 200, s.listLockouts()),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/resilience\/model-cooldowns$/,
      handler: async (q, r) => sendJson(r, 200, s.clearLockout(await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/resilience$/,
      handler: (_q, r) => sendJson(r, 200, s.getResilienceSettings()),
    },
    {
      method: 'PATCH',
      pattern: /^\/api\/resilience$/,
      handler: async (q, r) => sendJson(r, 200, s.updateResilienceSettings(await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/resilience\/connections$/,
      handler: (_q, r) => sendJson(r, 200, s.connectionStates()),
    },
    {
      method: 'POST',
      pattern: /^\/api\/resilience\/connections$/,
      handler: async (q, r) => sendJson(r, 200, s.clearConnectionState(await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/keys$/,
      handler: (_q, r) => sendJson(r, 200, listKeys(deps.accounts)),
    },
    {
      method: 'POST',
      pattern: /^\/api\/keys$/,
      handler: async (q, r) => sendJson(r, 201, createKey(deps.accounts, await body(q))),
    },
    {
      method: 'PATCH',
      pattern: /^\/api\/keys\/([^/]+)$/,
      handler: async (q, r, p) => sendJson(r, 200, updateKey(deps.accounts, id(p), await body(q))),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/keys\/([^/]+)$/,
      handler: (_q, r, p) => {
        revokeKey(deps.accounts, id(p));
        sendJson(r, 200, { deleted: id(p) });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/keys\/([^/]+)\/rotate$/,
      handler: (_q, r, p) => sendJson(r, 200, rotateKey(deps.accounts, id(p))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/usage$/,
      handler: (_q, r, _p, url) =>
        sendJson(r, 200, usageReport(deps.accounts, usageQueryOf(url.searchParams))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/settings$/,
      handler: (_q, r) => sendJson(r, 200, s.getSettings()),
    },
    {
      method: 'PATCH',
      pattern: /^\/api\/settings$/,
      handler: async (q, r) => sendJson(r, 200, s.updateSettings(await body(q))),
    },
  ];
}

/** Handles `/api/*`. `GET /api/health` is public (liveness only); everything else needs the admin token. */
export function createAdminHandler(deps: AdminDeps) {
  const table = routes(deps);
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    try {
      if (url.pathname === '/api/health' && req.method === 'GET')
        return sendJson(res, 200, deps.health());
      if (!checkAdminToken(req.headers, deps.token)) {
        res.setHeader('www-authenticate', 'Bearer realm="breakwater-admin"');
        throw new AdminError(
          401,
          'unauthorized',
          'admin endpoints need Authorization: Bearer <admin token> (see <data-dir>/admin-token)',
        );
      }
      const allowed: string[] = [];
      for (const route of table) {
        const m = route.pattern.exec(url.pathname);
        if (!m) continue;
        allowed.push(route.method);
        if (route.method !== req.method) continue;
        await route.handler(req, res, m.slice(1), url);
        return;
      }
      if (allowed.length > 0) {
        res.setHeader('allow', allowed.join(', '));
        throw new AdminError(
          405,
          'method_not_allowed',
          `${req.method} is not supported on ${url.pathname}`,
        );
      }
      throw new AdminError(404, 'not_found', `no admin endpoint ${url.pathname}`);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const e = adminError(err, deps.log, `${req.method} ${url.pathname}`);
      // A body left unread (too large, or refused before it was read) would be parsed as the
      // next request on this connection.
      if (!req.complete) res.setHeader('connection', 'close');
      sendAdminError(res, e.status, e.code, e.message, e.field);
    }
  };
}
