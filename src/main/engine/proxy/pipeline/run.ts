import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from '../../wire/client-errors';
import { fail } from './answer';
import { releaseBody } from './body-block';
import {
  contextFor,
  type DoorStage,
  doorFor,
  type RequestContext,
  type RequestStage,
} from './context';
import type { PipelineDeps } from './deps';

/**
 * Runs the front door, then the request stages. Front-door refusals close the connection while
 * the body may still be arriving, and are not logged (nothing about the request is known yet).
 */
export async function runDoor(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: PipelineDeps,
  door: readonly DoorStage[],
  stages: readonly RequestStage[],
): Promise<void> {
  const d = doorFor(req, res, url);
  for (const stage of door) {
    let decision = stage.run(d, deps);
    if (decision instanceof Promise) decision = await decision;
    if (decision.kind === 'continue') continue;
    // A refusal after the body was read (the pause) answers without it.
    releaseBody(d);
    if (decision.kind === 'reply') {
      // The request body may still be arriving; do not keep the socket around to read it.
      if (d.raw === null) res.setHeader('connection', 'close');
      sendError(res, d.format, decision.error);
    }
    return;
  }
  // Returned, not awaited: this frame is not kept alive for as long as a stream runs.
  return runRequest(contextFor(d, d.endpoint!, d.raw!, deps), deps, stages);
}

/**
 * Runs the request stages in order until one answers; then the stages that ran learn the
 * outcome in reverse order (the last of them writes the log row), whatever happened.
 */
export async function runRequest(
  ctx: RequestContext,
  deps: PipelineDeps,
  stages: readonly RequestStage[],
): Promise<void> {
  const res = ctx.res;
  res.once('close', () => {
    // After a complete answer there is nothing left to cancel (and no Error worth making).
    if (res.writableFinished) return;
    ctx.clientGone = true;
    ctx.abortAttempt?.();
  });
  let ran = 0;
  try {
    while (ran < stages.length) {
      let decision = stages[ran++]!.run(ctx, deps);
      if (decision instanceof Promise) decision = await decision;
      if (decision.kind === 'continue') continue;
      if (decision.kind === 'reply') fail(ctx, res, decision.error);
      break;
    }
  } catch (err) {
    deps.log.error(`proxy: unexpected failure: ${(err as Error).stack ?? String(err)}`);
    fail(ctx, res, {
      status: 500,
      kind: 'internal',
      code: 'internal_error',
      message: 'Breakwater hit an internal error handling this request; see the gateway log',
    });
  } finally {
    while (ran > 0) stages[--ran]!.after?.(ctx, deps);
    // An agent's turn is 50-200 KB: not kept for as long as anything still refers to the request.
    ctx.retained = null;
    if (ctx.pooled !== null) releaseBody(ctx);
  }
}
