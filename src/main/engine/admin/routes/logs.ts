// One request log row with its captured call, its replay, and an agent session's summary.

import { sendJson } from '../../wire/json-answer';
import { type AdminOperations, logId, replayLog, sessionSummary } from '../operations';
import type { RequestReaders, Route } from './route';

export function logRoutes(ops: AdminOperations, input: RequestReaders): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/logs\/([^/]+)$/,
      handler: (_q, r, p) => sendJson(r, 200, ops.service.logDetail(logId(input.id(p)))),
    },
    {
      method: 'POST',
      pattern: /^\/api\/logs\/([^/]+)\/replay$/,
      handler: async (q, r, p) => {
        const id = logId(input.id(p));
        sendJson(r, 200, await replayLog(ops, id, await input.optionalBody(q)));
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/usage\/cache$/,
      handler: (_q, r) => sendJson(r, 200, { sessions: ops.sessionCache?.() ?? [] }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/sessions\/([^/]+)$/,
      handler: (_q, r, p) => sendJson(r, 200, sessionSummary(ops, input.id(p))),
    },
  ];
}
