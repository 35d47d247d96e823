import { planRelay, type RelayTarget } from '../../routing/context-relay';
import { summaryInstruction, summaryRequest } from '../../routing/multi-call-prompts';
import { groups } from '../../routing/strategies/types';
import { estimateInputTokens } from '../../translate';
import type { IrRequest } from '../../translate/ir';
import { startsIrTurn, turnStarts } from '../../translate/turns';
import type { RequestContext } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';
import { internalCall } from './internal-call';
import {
  abandoned,
  conversation,
  type Orchestration,
  rewriteConversation,
  shareEnd,
} from './multi-call';

/** The longest summary the summarizer is asked for. */
const SUMMARY_TOKENS = 2048;

/** Where each turn starts in the IR conversation (the first message opens the first turn). */
function turnBounds(ir: IrRequest): number[] {
  const starts = turnStarts(ir.messages, () => false, startsIrTurn).filter((s) => s > 0);
  return ir.messages.length === 0 ? [] : [0, ...starts];
}

/**
 * context-relay: the session stays on its target while that target is eligible and its window
 * holds the conversation; otherwise it moves on (routing/context-relay.ts decides), and when the
 * new window is too small the oldest turns are replaced by a summary the summarizer writes in an
 * internal call. The final call is the dispatch's, in the client's format.
 */
export async function relaySession(o: Orchestration): Promise<Decision> {
  const { ctx, deps, stages, combo } = o;
  const ir = conversation(ctx);
  const bounds = turnBounds(ir);
  const turns = bounds.map((from, i) =>
    estimateInputTokens({
      ...ir,
      system: [],
      tools: [],
      messages: ir.messages.slice(from, bounds[i + 1] ?? ir.messages.length),
    }),
  );
  const now = ctx.now();
  const all = groups(ctx.candidates);
  const targets: RelayTarget[] = all.map((g) => ({
    label: g.label,
    eligible: g.items.some((c) => deps.resilience.exclusion(c, now) === null),
    contextWindow: ctx.catalog.modelSpec(g.items[0]!.target.provider.id, g.items[0]!.target.model)
      .contextWindow,
  }));
  const session = ctx.session;
  const plan = planRelay({
    targets,
    current: session ? deps.routing?.relaySessions.get(combo.name, session, now) : undefined,
    turns,
    fixed: estimateInputTokens({ ...ir, messages: [] }) + (ir.maxTokens ?? 0),
  });
  ctx.steps.push(session ? plan.reason : `no session: ${plan.reason}`);
  const rank = new Map(plan.order.map((label, i) => [label, i]));
  ctx.candidates = all
    .sort((a, b) => rank.get(a.label)! - rank.get(b.label)!)
    .flatMap((g) => g.items);
  if (plan.summarize === 0) return CONTINUE;
  const cut = bounds[plan.summarize]!;
  const summarizer = combo.options?.summarizer ?? '';
  const answer = await internalCall(ctx, deps, stages, {
    role: 'summarizer',
    ref: summarizer,
    budgetEnd: shareEnd(o, 1, 2),
    ir: summaryRequest(ir.messages.slice(0, cut), SUMMARY_TOKENS),
  });
  const gone = abandoned(ctx);
  if (gone) return gone;
  if (!answer.ok) {
    ctx.steps.push(`summarizer failed: ${answer.why}`);
    return reply(answer.error);
  }
  ctx.steps.push(`summary by ${answer.label}`);
  rewriteConversation(ctx, {
    ...ir,
    system: [...ir.system, summaryInstruction(answer.text, plan.summarize)],
    messages: ir.messages.slice(cut),
  });
  return CONTINUE;
}

/** The session keeps the target that served it, for its next request. */
export function rememberRelay(ctx: RequestContext, deps: PipelineDeps): void {
  const served = ctx.served;
  if (!ctx.session || !served || !ctx.combo || ctx.status < 200 || ctx.status >= 300) return;
  deps.routing?.relaySessions.set(ctx.combo.name, ctx.session, served.target.label, ctx.now());
}
