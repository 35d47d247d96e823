// `/api/gateway` and `/api/leases`: pausing and moving the running gateway, releasing a lease.

import { sendJson } from '../../wire/json-answer';
import { type AdminOperations, releaseLease, setGatewayAddress, setPaused } from '../operations';
import type { RequestReaders, Route } from './route';

export function gatewayRoutes(ops: AdminOperations, { body }: RequestReaders): Route[] {
  return [
    ...(['pause', 'resume'] as const).map(
      (action): Route => ({
        method: 'POST',
        pattern: new RegExp(`^/api/gateway/${action}$`),
        handler: (_q, r) => sendJson(r, 200, setPaused(ops, action === 'pause')),
      }),
    ),
    {
      method: 'POST',
      pattern: /^\/api\/gateway\/address$/,
      handler: async (q, r) => sendJson(r, 200, await setGatewayAddress(ops, await body(q))),
    },
    {
      method: 'POST',
      pattern: /^\/api\/leases\/release$/,
      handler: async (q, r) => sendJson(r, 200, releaseLease(ops, await body(q))),
    },
  ];
}
