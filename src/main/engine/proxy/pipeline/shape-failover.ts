import { toolCount } from '../../resilience/shape';
import type { Candidate } from '../../routing/resolve';
import type { GatewayError } from '../../wire/client-errors';
import type { Attempt, AttemptStage, ShapeRefusal } from './attempt';
import { bodyOf, type RequestContext } from './context';
import { CONTINUE, skip } from './decision';

/** A target's context window in tokens, as configured or known by default; null when unknown. */
function windowOf(ctx: RequestContext, c: Candidate): number | null {
  return ctx.catalog.modelSpec(c.target.provider.id, c.target.model).contextWindow ?? null;
}

/** The 400 naming a tool limit, when no target without it is left. */
export function tooManyTools(
  count: number,
  label: string,
  max: number,
  when: string,
): GatewayError {
  return {
    status: 400,
    kind: 'invalid_request',
    code: 'too_many_tools',
    param: 'tools',
    message: `the request offers ${count} tools, but ${label} takes at most ${max} (${when}) and no target without that limit is left`,
  };
}

/**
 * Whether the dispatch fails over on a refusal for the request's shape (issue 17) rather than
 * relaying it, with the step and the event saying so. A tool limit always does: the next target
 * without it serves, or, when none is left, the 400 naming the limit is the answer. A prompt too
 * long does only when a later target has a larger context window than the one refused (the
 * window the error states, else the configured one); otherwise the client gets the 400 as it was.
 */
export function failOverShape(
  a: Attempt,
  refusal: ShapeRefusal,
  rest: readonly Candidate[],
): boolean {
  const { ctx, candidate } = a;
  let change: string;
  if (refusal.kind === 'tool_limit') {
    const count = toolCount(bodyOf(ctx));
    a.dispatch.tooManyTools = tooManyTools(
      count,
      candidate.target.label,
      refusal.max,
      'as it just answered',
    );
    change = `takes at most ${refusal.max} tools; failing over to a target without that limit`;
  } else {
    const limit = refusal.limit ?? windowOf(ctx, candidate);
    if (limit === null || !rest.some((c) => (windowOf(ctx, c) ?? 0) > limit)) return false;
    a.dispatch.contextFloor = Math.max(a.dispatch.contextFloor ?? 0, limit);
    change = `prompt too long for its ${limit}-token context window; failing over to a larger one`;
  }
  ctx.steps.push(`${a.label} ${change}`);
  a.deps.shape?.repairs.failedOver({
    provider: candidate.target.provider.id,
    connection: candidate.connection.id,
    model: candidate.target.model,
    mechanism: refusal.kind === 'tool_limit' ? 'tool_limit' : 'context',
    change,
    cause: refusal.cause,
  });
  return true;
}

/**
 * Attempt stage (issue 17): once a target said the prompt is too long for its window, only
 * targets with a larger known window are tried; the others are skipped before any capacity is
 * taken. Nothing happens until a target said so.
 */
export const contextWindow: AttemptStage = {
  name: 'context-window',
  enter(a) {
    const floor = a.dispatch.contextFloor;
    if (floor === null) return CONTINUE;
    const window = windowOf(a.ctx, a.candidate);
    if (window !== null && window > floor) return CONTINUE;
    return skip(
      'context_window',
      null,
      `its context window (${window ?? 'unknown'}) is not larger than ${floor} tokens`,
    );
  },
};
