// `/api/combos`: the named model combinations.

import { sendJson } from '../../wire/json-answer';
import { type AdminService, NotFoundError } from '../service';
import { type RequestReaders, type Route, rejectOtherKey } from './route';

export function comboRoutes(s: AdminService, { body, id }: RequestReaders): Route[] {
  return [
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
        rejectOtherKey(input, 'name', name);
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
  ];
}
