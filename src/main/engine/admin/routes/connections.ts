// `/api/connections`: every provider's connections, removing one, and testing one.

import { sendJson } from '../../wire/json-answer';
import { type AdminOperations, testConnection } from '../operations';
import type { RequestReaders, Route } from './route';

export function connectionRoutes(ops: AdminOperations, { id }: RequestReaders): Route[] {
  const s = ops.service;
  return [
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
      handler: async (_q, r, p) => sendJson(r, 200, await testConnection(ops, id(p))),
    },
  ];
}
