// What the gateway is doing: its state snapshot, the live event stream, the request log and the
// monitoring health summary.

import type { EngineEvent, Snapshot } from '../../../../shared/contract';
import { sendJson } from '../../wire/json-answer';
import { streamEvents } from '../event-stream';
import { recentLogs } from '../operations';
import type { AdminService } from '../service';
import type { Route } from './route';

export interface StatusSources {
  service: AdminService;
  snapshot(): Snapshot;
  onEvent(listener: (e: EngineEvent) => void): () => void;
}

export function statusRoutes(deps: StatusSources): Route[] {
  const s = deps.service;
  return [
    {
      method: 'GET',
      pattern: /^\/api\/state$/,
      handler: (_q, r) => sendJson(r, 200, deps.snapshot()),
    },
    { method: 'GET', pattern: /^\/api\/events$/, handler: (q, r) => streamEvents(q, r, deps) },
    {
      method: 'GET',
      pattern: /^\/api\/logs$/,
      handler: (_q, r, _p, url) => sendJson(r, 200, recentLogs(s, url.searchParams)),
    },
    {
      method: 'GET',
      pattern: /^\/api\/monitoring\/health$/,
      handler: (_q, r) => sendJson(r, 200, s.monitoringHealth()),
    },
  ];
}
