// `/api/web-search`: the search backend the gateway runs search tools on (docs/web-search.md).

import { sendJson } from '../../wire/json-answer';
import type { WebSearchAdmin } from '../web-search';
import type { RequestReaders, Route } from './route';

export function webSearchRoutes(w: WebSearchAdmin | undefined, { body }: RequestReaders): Route[] {
  if (!w) return [];
  return [
    {
      method: 'GET',
      pattern: /^\/api\/web-search$/,
      handler: (_q, r) => sendJson(r, 200, w.view()),
    },
    {
      method: 'PUT',
      pattern: /^\/api\/web-search$/,
      handler: async (q, r) => sendJson(r, 200, w.save(await body(q))),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/web-search$/,
      handler: (_q, r) => sendJson(r, 200, w.remove()),
    },
  ];
}
