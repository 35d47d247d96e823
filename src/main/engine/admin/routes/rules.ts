// `/api/rules`: the routing rules, replaced whole, and the "try a request" check.

import { sendJson } from '../../wire/json-answer';
import type { AdminService } from '../service';
import type { RequestReaders, Route } from './route';

export function ruleRoutes(s: AdminService, { body }: RequestReaders): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/rules$/,
      handler: (_q, r) => sendJson(r, 200, s.listRules()),
    },
    {
      method: 'PUT',
      pattern: /^\/api\/rules$/,
      handler: async (q, r) => sendJson(r, 200, s.saveRules(await body(q))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/rules\/claude-code$/,
      handler: (_q, r) => sendJson(r, 200, s.claudeCodeRules()),
    },
    {
      method: 'POST',
      pattern: /^\/api\/rules\/test$/,
      handler: async (q, r) => sendJson(r, 200, s.testRules(await body(q))),
    },
  ];
}
