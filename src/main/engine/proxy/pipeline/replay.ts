// `POST /api/logs/{id}/replay`: a captured client request sent again through the request stages
// (the same key, its limits and budgets), answered into a sink; what matters is its new row.

import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApiKeyConfig, ReplayResult } from '../../../../shared/contract';
import { ValidationError } from '../../../../shared/validation-error';
import { routeModel } from '../../routing/resolve';
import { rewriteTopLevelModel } from '../../wire/model-rewrite';
import { CapturedResponse } from './captured-response';
import { contextFor, doorFor, type RequestStage } from './context';
import type { PipelineDeps } from './deps';
import { runRequest } from './run';

export interface ReplayInput {
  /** The row replayed, named in the new row's decision. */
  of: number;
  method: string;
  /** The gateway path and query the client used. */
  path: string;
  /** The client's headers as captured; redacted ones are left out. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  /** The key the client presented, as it is now (null: none was). */
  key: GatewayApiKeyConfig | null;
  /** Another model, combo or `provider/model` to send it to. */
  target: string | null;
}

export class ReplayRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A parent that never closes: a replay has no client to go away. */
const NO_CLIENT = new EventEmitter() as unknown as ServerResponse;

export async function replayRequest(
  input: ReplayInput,
  deps: PipelineDeps,
  stages: readonly RequestStage[],
): Promise<ReplayResult> {
  if (deps.paused()) throw new ReplayRefusedError('gateway_paused', 'the gateway is paused');
  const url = new URL(input.path, 'http://replay.invalid');
  let body = input.body;
  let path = input.path;
  if (input.target !== null) {
    if (routeModel(deps.catalog(), input.target).expansion === null) {
      throw new ValidationError('target', `"${input.target}" is no combo, model or provider/model`);
    }
    const moved = url.pathname.replace(/(\/models\/)[^/:]+/, `$1${input.target}`);
    if (moved !== url.pathname) path = moved + url.search;
    else body = rewriteTopLevelModel(body, input.target, true) ?? withModel(body, input.target);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (value !== '[redacted]') headers[name.toLowerCase()] = value;
  }
  headers['content-length'] = String(body.length);
  const req = {
    method: input.method,
    url: path,
    headers,
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  const sink = new CapturedResponse(NO_CLIENT);
  const door = doorFor(req, sink.asResponse(), new URL(path, url));
  if (!door.endpoint) {
    throw new ReplayRefusedError('not_replayable', `${url.pathname} is not a proxy endpoint`);
  }
  door.key = input.key;
  let id = 0;
  // The client's row is written last (record is the first stage): its id is the one kept.
  const counted: PipelineDeps = Object.create(deps, {
    record: { value: (...args: Parameters<PipelineDeps['record']>) => (id = deps.record(...args)) },
  });
  const ctx = contextFor(door, door.endpoint, body, counted);
  ctx.steps.push(`replay of request ${input.of}`);
  await runRequest(ctx, counted, stages);
  return { id, status: ctx.status || sink.statusCode };
}

function withModel(body: Buffer, model: string): Buffer {
  try {
    const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    return Buffer.from(JSON.stringify({ ...json, model }));
  } catch {
    throw new ReplayRefusedError('not_replayable', 'the captured body is not JSON');
  }
}
