// `/api/keys` and `/api/usage`: gateway keys and what they spent.

import { sendJson } from '../../wire/json-answer';
import {
  createKey,
  type KeyOperations,
  listKeys,
  revokeKey,
  rotateKey,
  updateKey,
  usageQueryOf,
  usageReport,
} from '../keys';
import type { RequestReaders, Route } from './route';

export function keyRoutes(accounts: KeyOperations, { body, id }: RequestReaders): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/keys$/,
      handler: (_q, r) => sendJson(r, 200, listKeys(accounts)),
    },
    {
      method: 'POST',
      pattern: /^\/api\/keys$/,
      handler: async (q, r) => sendJson(r, 201, createKey(accounts, await body(q))),
    },
    {
      method: 'PATCH',
      pattern: /^\/api\/keys\/([^/]+)$/,
      handler: async (q, r, p) => sendJson(r, 200, updateKey(accounts, id(p), await body(q))),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/keys\/([^/]+)$/,
      handler: (_q, r, p) => {
        revokeKey(accounts, id(p));
        sendJson(r, 200, { deleted: id(p) });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/keys\/([^/]+)\/rotate$/,
      handler: (_q, r, p) => sendJson(r, 200, rotateKey(accounts, id(p))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/usage$/,
      handler: (_q, r, _p, url) =>
        sendJson(r, 200, usageReport(accounts, usageQueryOf(url.searchParams))),
    },
  ];
}
