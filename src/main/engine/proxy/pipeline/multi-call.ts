import type { ComboConfig } from '../../../../shared/contract';
import { parseTargetRef } from '../../../../shared/schema/combo';
import type { Candidate } from '../../routing/resolve';
import { emitRequest, parseRequest } from '../../translate';
import type { IrRequest, Json } from '../../translate/ir';
import type { AttemptStage } from './attempt';
import { bodyOf, markClientAbort, type RequestContext } from './context';
import { ANSWERED, type Decision } from './decision';
import type { PipelineDeps } from './deps';

/** What a multi-call strategy needs to make its internal calls and set up the final one. */
export interface Orchestration {
  ctx: RequestContext;
  deps: PipelineDeps;
  stages: readonly AttemptStage[];
  combo: ComboConfig;
}

/**
 * The end of phase `phase` of `phases` in the client request's one failover budget, counted
 * from its arrival: internal calls run in the phases before the last, which is the final call's
 * (dispatch's own budget end). A phase that ends early leaves its time to the next, and however
 * slow the ones before, the final call keeps at least its share.
 */
export function shareEnd(o: Orchestration, phase: number, phases: number): number {
  return o.ctx.started + Math.floor((o.deps.failoverBudgetMs() * phase) / phases);
}

/**
 * Upstream calls a request of `combo` makes at most, and how many of them read an earlier
 * call's answer (a fusion judge reads each panel answer; a pipeline step, the draft before it).
 * A context-relay summary is made only sometimes, and is left out.
 */
export function callsOf(combo: ComboConfig | null): { calls: number; answersRead: number } {
  if (combo?.strategy === 'fusion') {
    const panel = combo.options?.panel?.length ?? 0;
    return { calls: panel + 1, answersRead: panel };
  }
  if (combo?.strategy === 'pipeline') {
    return { calls: combo.targets.length, answersRead: combo.targets.length - 1 };
  }
  return { calls: 1, answersRead: 0 };
}

/** The client's conversation, in the IR. */
export function conversation(ctx: RequestContext): IrRequest {
  return parseRequest(
    ctx.endpoint.format,
    bodyOf(ctx),
    ctx.endpoint.gemini ?? { model: '', stream: false },
  ).value;
}

/** Where each client format keeps the conversation and its instructions. */
const CONVERSATION_KEYS: Record<string, readonly string[]> = {
  'openai-chat': ['messages'],
  'openai-responses': ['input', 'instructions'],
  anthropic: ['messages', 'system'],
  gemini: ['contents', 'systemInstruction', 'system_instruction'],
};

/**
 * The client's request with its conversation replaced by `ir`'s, every other field (stream,
 * tools, sampling, the format's own extras) as the client sent it; the final call sends it.
 */
export function rewriteConversation(ctx: RequestContext, ir: IrRequest): void {
  const format = ctx.endpoint.format;
  const emitted = emitRequest(format, ir).value;
  const body: Json = { ...bodyOf(ctx) };
  for (const key of CONVERSATION_KEYS[format] ?? []) {
    delete body[key];
    if (emitted[key] !== undefined) body[key] = emitted[key];
  }
  ctx.parsed = body;
  ctx.raw = Buffer.from(JSON.stringify(body));
  // Translations of the old body must not be sent, nor its IR and token estimate read.
  ctx.translated = undefined;
  ctx.ir = undefined;
  ctx.inputTokens = undefined;
}

/** The request's candidates for one `provider/model[@connection]` of its combo. */
export function candidatesFor(ctx: RequestContext, ref: string): Candidate[] {
  const t = parseTargetRef(ref);
  if (!t) return [];
  return ctx.candidates.filter(
    (c) =>
      c.target.provider.id === t.provider &&
      c.target.model === t.model &&
      c.target.pinnedConnection === t.connection,
  );
}

/** The client left while internal calls ran: nothing more to do. */
export function abandoned(ctx: RequestContext): Decision | null {
  if (!ctx.clientGone) return null;
  markClientAbort(ctx);
  return ANSWERED;
}
