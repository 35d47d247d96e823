import { type Candidate, routeModel } from '../../routing/resolve';
import { emitRequest, parseError, parseResponse } from '../../translate';
import type { IrRequest, IrResponse } from '../../translate/ir';
import { emptyUsage } from '../../usage/usage';
import type { ErrorKind, GatewayError } from '../../wire/client-errors';
import { findEndpoint } from '../endpoints';
import type { AttemptStage } from './attempt';
import { CapturedResponse } from './captured-response';
import type { RequestContext } from './context';
import type { PipelineDeps } from './deps';
import { Dispatch } from './dispatch';
import { writeLogRow } from './record';

/** Internal calls are made in Chat Completions, whatever the client speaks: one answer shape. */
const CHAT = findEndpoint('/v1/chat/completions')!;

/** One upstream call a multi-call strategy makes on a client request's behalf. */
export interface InternalRequest {
  /** What it is for, in the decision header and its own log row: "panel", "step 1", … */
  role: string;
  /** The `provider/model[@connection]` it goes to. */
  ref: string;
  /** Its candidates when the request's routing already found them (the combo's own targets). */
  candidates?: readonly Candidate[];
  /** When its failover stops: its share of the client request's one budget (`shareEnd`). */
  budgetEnd: number;
  ir: IrRequest;
}

export type InternalAnswer =
  | {
      ok: true;
      label: string;
      text: string;
      response: IrResponse;
      /** The candidate that answered. */
      served: Candidate | null;
    }
  | {
      ok: false;
      label: string;
      error: GatewayError;
      /** What went wrong, naming the target or its connections, for the decision header. */
      why: string;
    };

/**
 * Makes one internal call through the same dispatch as a client request: the attempt stages
 * (breaker, cooldowns, lockouts, leases, maxConcurrent and queues, admission), failover between
 * the target's connections, the cooldown wait. Its answer is captured, not sent; it gets its
 * own log row and usage sample (priced by its own model, counted against the client's key); the
 * client going away cancels it.
 */
export async function internalCall(
  parent: RequestContext,
  deps: PipelineDeps,
  stages: readonly AttemptStage[],
  request: InternalRequest,
): Promise<InternalAnswer> {
  const candidates = request.candidates ?? candidatesOf(parent, deps, request.ref);
  if (candidates.length === 0) {
    const error: GatewayError = {
      status: 404,
      kind: 'not_found',
      code: 'no_executable_targets',
      message: `${request.role} target "${request.ref}" does not resolve to a usable connection`,
    };
    return { ok: false, label: request.ref, error, why: `${request.ref} has no usable connection` };
  }
  // A Chat-only provider is sent the Chat request as it is: `max_tokens`, not OpenAI's newer name.
  const json = emitRequest(
    'openai-chat',
    { ...request.ir, stream: false },
    candidates[0]!.target.provider.format,
  ).value;
  const raw = Buffer.from(JSON.stringify(json));
  const sink = new CapturedResponse(parent.res);
  const child: RequestContext = {
    ...parent,
    res: sink.asResponse(),
    endpoint: CHAT,
    search: '',
    started: parent.now(),
    bytesIn: raw.length,
    model: request.ref,
    stream: false,
    background: false,
    parsed: json,
    raw,
    // The client's pooled block is the parent's to give back, not this call's (body-block.ts).
    pooled: null,
    // The client request's IR and estimate are not this call's.
    ir: undefined,
    inputTokens: undefined,
    steps: [
      `${parent.combo ? `combo ${parent.combo.name} (${parent.combo.strategy})` : 'combo'}: ${request.role} call`,
    ],
    candidates,
    served: null,
    status: 0,
    ttfb: null,
    bytesOut: 0,
    usage: emptyUsage(),
    errorClass: null,
    errorMessage: null,
    egressIp: null,
    abortAttempt: null,
    cacheBlocks: null,
    reservation: null,
    shareTicket: null,
    cachePrefix: null,
    translated: undefined,
    warnings: undefined,
    captured: undefined,
  };
  sink.once('close', () => {
    child.clientGone = true;
    child.abortAttempt?.();
  });
  try {
    // No session: a pinned connection belongs to the client's own target, not to this one.
    await new Dispatch(child, deps, stages, null, request.budgetEnd).run();
  } finally {
    writeLogRow(child, deps);
  }
  const label = child.served?.target.label ?? request.ref;
  return answerOf(child, sink.text(), label);
}

function answerOf(child: RequestContext, text: string, label: string): InternalAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (child.status >= 200 && child.status < 300 && body !== null && typeof body === 'object') {
    const response = parseResponse('openai-chat', body as never);
    return { ok: true, label, text: answerText(response), response, served: child.served };
  }
  // The attempts' own steps name the connection and the cause ("b/m@b-1 failed (HTTP 500, …)").
  const failed = child.steps.filter((s) => / (failed|skipped) \(/.test(s));
  const why =
    failed.length > 0
      ? failed.join(', ')
      : `${label} failed (${child.errorClass ?? `HTTP ${child.status || 500}`})`;
  const err = parseError('openai-chat', child.status, body);
  const error: GatewayError = err
    ? { status: child.status, kind: err.kind as ErrorKind, code: err.code, message: err.message }
    : {
        status: child.clientGone ? 499 : 502,
        kind: 'upstream',
        code: child.errorClass ?? 'upstream_invalid_response',
        message: `${label} gave no usable answer`,
      };
  return { ok: false, label, error, why };
}

/** The answer as the next step reads it: its text, and any tool calls it made, described. */
function answerText(r: IrResponse): string {
  return r.parts
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'tool_call'
          ? `[calls tool ${p.name}(${p.arguments})]`
          : '',
    )
    .filter((t) => t.length > 0)
    .join('\n');
}

/** A target outside the combo's own (a summarizer), resolved and planned as route and plan do. */
function candidatesOf(ctx: RequestContext, deps: PipelineDeps, ref: string): Candidate[] {
  const routed = routeModel(ctx.catalog, ref);
  if (routed.expansion === null) return [];
  return routed.expansion.candidates.filter(
    (c) => deps.leases?.allows(ctx.lease, c, ctx.now()) ?? true,
  );
}
