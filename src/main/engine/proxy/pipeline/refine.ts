import { targetRefOf } from '../../../../shared/schema/combo';
import { type PeerAnswer, refineInstruction } from '../../routing/multi-call-prompts';
import type { IrRequest } from '../../translate/ir';
import { CONTINUE, type Decision } from './decision';
import { internalCall } from './internal-call';
import {
  abandoned,
  candidatesFor,
  conversation,
  type Orchestration,
  rewriteConversation,
  shareEnd,
} from './multi-call';

/**
 * pipeline: each target in order refines the answer of the one before (internal, non-streaming
 * calls); the last one's call is the dispatch's, so it streams when the client asked. A step
 * that fails is passed over (the next refines the last draft there is) and the decision says so;
 * only the last step failing fails the request.
 */
export async function refine(o: Orchestration): Promise<Decision> {
  const { ctx, deps, stages, combo } = o;
  const refs = combo.targets.map(targetRefOf);
  const ir = conversation(ctx);
  const withDraft = (draft: PeerAnswer | null): IrRequest =>
    draft ? { ...ir, system: [...ir.system, refineInstruction(draft)] } : ir;
  let draft: PeerAnswer | null = null;
  const done: string[] = [];
  for (let i = 0; i < refs.length - 1; i++) {
    const ref = refs[i]!;
    const answer = await internalCall(ctx, deps, stages, {
      role: `step ${i + 1}/${refs.length}`,
      ref,
      candidates: candidatesFor(ctx, ref),
      budgetEnd: shareEnd(o, i + 1, refs.length),
      ir: withDraft(draft),
    });
    const gone = abandoned(ctx);
    if (gone) return gone;
    if (answer.ok) draft = { label: answer.label, text: answer.text };
    done.push(answer.ok ? `${answer.label} drafted` : answer.why);
  }
  const last = refs[refs.length - 1]!;
  if (done.length > 0) ctx.steps.push(`steps: ${done.join(', ')}`);
  ctx.steps.push(
    draft ? `${last} refines the draft of ${draft.label}` : `${last} answers without a draft`,
  );
  if (draft) rewriteConversation(ctx, withDraft(draft));
  ctx.candidates = candidatesFor(ctx, last);
  return CONTINUE;
}
