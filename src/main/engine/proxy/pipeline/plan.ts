import { noTargetAnswer } from '../../routing/no-target';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Request stage: leases shape the plan (RESILIENCE.md §10). Connections others hold exclusively
 * are left out; a managed request goes to its own connection. When nothing is left, the answer
 * says when to come back.
 */
export const plan: RequestStage = {
  name: 'plan',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    if (!deps.leases) return CONTINUE;
    const planned = deps.leases.plan(ctx.lease, ctx.candidates, ctx.now());
    if ('status' in planned) return reply(planned);
    if (planned.note) ctx.steps.push(planned.note);
    for (const s of planned.skipped) ctx.steps.push(`${s.target} skipped (${s.reason})`);
    if (planned.candidates.length === 0) {
      return reply(noTargetAnswer(ctx.model, planned.skipped, planned.skipped.length, 0));
    }
    ctx.candidates = planned.candidates;
    return CONTINUE;
  },
};
