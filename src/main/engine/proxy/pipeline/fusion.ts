import { judgeInstruction } from '../../routing/multi-call-prompts';
import { CONTINUE, type Decision, reply } from './decision';
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
 * fusion: the panel answers the conversation in parallel (non-streaming internal calls), then
 * the judge writes the answer from whichever answered; the judge's call is the dispatch's, so it
 * streams when the client asked. No panel answer: the request fails with the first member's
 * error, in the client's format.
 */
export async function fuse(o: Orchestration): Promise<Decision> {
  const { ctx, deps, stages, combo } = o;
  const panel = combo.options?.panel ?? [];
  const judge = combo.options?.judge ?? '';
  const ir = conversation(ctx);
  const answers = await Promise.all(
    panel.map((ref, i) =>
      internalCall(ctx, deps, stages, {
        role: `panel ${i + 1}/${panel.length}`,
        ref,
        candidates: candidatesFor(ctx, ref),
        budgetEnd: shareEnd(o, 1, 2),
        ir,
      }),
    ),
  );
  const gone = abandoned(ctx);
  if (gone) return gone;
  ctx.steps.push(`panel: ${answers.map((a) => (a.ok ? `${a.label} answered` : a.why)).join(', ')}`);
  const good = answers.flatMap((a) => (a.ok ? [a] : []));
  if (good.length === 0) {
    const first = answers.find((a) => !a.ok);
    ctx.steps.push('no panel answer: no judge call');
    return reply(
      first && !first.ok
        ? first.error
        : {
            status: 502,
            kind: 'upstream',
            code: 'upstream_unreachable',
            message: 'no panel member answered',
          },
    );
  }
  ctx.steps.push(`judge ${judge} writes the answer from ${good.length} of ${panel.length}`);
  rewriteConversation(ctx, { ...ir, system: [...ir.system, judgeInstruction(good)] });
  ctx.candidates = candidatesFor(ctx, judge);
  return CONTINUE;
}
