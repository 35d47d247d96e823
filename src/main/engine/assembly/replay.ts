// The admin API's replay and session summary, which reach past the admin layer: a captured
// request goes back through the pipeline; a session is read from the usage's session book.

import type { ReplayResult } from '../../../shared/contract';
import { AdminError } from '../admin/operations';
import { NotFoundError } from '../admin/service';
import {
  type PipelineDeps,
  ReplayRefusedError,
  replayProxyRequest,
  type StoredCapture,
} from '../proxy/pipeline/index';
import type { EngineParts } from './parts';

export async function replayLogged(
  parts: EngineParts,
  pipeline: () => PipelineDeps,
  id: number,
  target: string | null,
): Promise<ReplayResult> {
  const row = parts.store.requestLog.detail(id);
  if (!row) throw new NotFoundError(`request log row ${id}`);
  const client = (row.capture as StoredCapture | null)?.client ?? null;
  if (!client || client.body === null || client.truncated) {
    throw new AdminError(
      409,
      'not_replayable',
      client
        ? `request ${id} was captured without its whole body (longer than requestLog.captureMaxBytes, or a stream that broke off)`
        : `request ${id} was not captured (see requestLog.captureBodies)`,
    );
  }
  const keyName = row.entry.keyName ?? null;
  const key = keyName ? parts.keyRing.liveByName(keyName) : null;
  if (keyName && !key) {
    throw new AdminError(409, 'key_revoked', `the gateway key "${keyName}" is no longer live`);
  }
  try {
    return await replayProxyRequest(
      {
        of: id,
        method: client.method,
        path: client.path,
        headers: client.headers,
        body: Buffer.from(client.body),
        key,
        target,
      },
      pipeline(),
    );
  } catch (err) {
    if (err instanceof ReplayRefusedError) throw new AdminError(409, err.code, err.message);
    throw err;
  }
}
