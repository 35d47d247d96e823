import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineEvent, Snapshot } from '../../../shared/contract';
import { checkAdminToken } from '../wire/guard';
import { sendAdminError, sendJson } from '../wire/json-answer';
import { agentRoutes } from './agents';
import type { KeyOperations } from './keys';
import { learnedFixRoutes } from './learned-fixes';
import { AdminError, type AdminOperations, adminError } from './operations';
import { comboRoutes } from './routes/combos';
import { connectionRoutes } from './routes/connections';
import { gatewayRoutes } from './routes/gateway';
import { keyRoutes } from './routes/keys';
import { logRoutes } from './routes/logs';
import { providerRoutes } from './routes/providers';
import { resilienceRoutes } from './routes/resilience';
import { type Route, requestReaders } from './routes/route';
import { ruleRoutes } from './routes/rules';
import { settingsRoutes } from './routes/settings';
import { statusRoutes } from './routes/status';
import { webSearchRoutes } from './routes/web-search';
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

/**
 * One table per resource; a request goes to the first route whose pattern and method match, and
 * the methods of every route whose pattern matches make a 405's Allow header.
 */
function routes(deps: AdminDeps): Route[] {
  const input = requestReaders(deps.maxBodyBytes);
  return [
    ...learnedFixRoutes(deps.learnedFixes),
    ...setupRoutes(deps, input.body),
    ...agentRoutes(deps, input.optionalBody, input.id),
    ...statusRoutes(deps),
    ...logRoutes(deps, input),
    ...providerRoutes(deps.service, input),
    ...connectionRoutes(deps, input),
    ...comboRoutes(deps.service, input),
    ...ruleRoutes(deps.service, input),
    ...gatewayRoutes(deps, input),
    ...resilienceRoutes(deps.service, input),
    ...keyRoutes(deps.accounts, input),
    ...settingsRoutes(deps.service, input),
    ...webSearchRoutes(deps.webSearch, input),
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
