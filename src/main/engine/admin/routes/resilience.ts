// `/api/resilience`: breakers, model cooldowns, connection states and the resilience settings.

import { sendJson } from '../../wire/json-answer';
import type { AdminService } from '../service';
import type { RequestReaders, Route } from './route';

export function resilienceRoutes(s: AdminService, { body, optionalBody }: RequestReaders): Route[] {
  return [
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
  ];
}
