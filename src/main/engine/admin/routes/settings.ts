// `/api/settings`: the gateway's settings.

import { sendJson } from '../../wire/json-answer';
import type { AdminService } from '../service';
import type { RequestReaders, Route } from './route';

export function settingsRoutes(s: AdminService, { body }: RequestReaders): Route[] {
  return [
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
