// `/api/providers`: the configured providers, and adding a connection to one.

import { sendJson } from '../../wire/json-answer';
import type { AdminService } from '../service';
import { type RequestReaders, type Route, rejectOtherKey } from './route';

export function providerRoutes(s: AdminService, { body, id }: RequestReaders): Route[] {
  return [
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
        rejectOtherKey(input, 'id', providerId);
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
  ];
}
