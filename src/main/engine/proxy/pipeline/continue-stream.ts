import { decideContinuation } from '../../resilience/continuation';
import type { Candidate } from '../../routing/resolve';
import { TranslationError } from '../../translate';
import type { Attempt, AttemptOutcome } from './attempt';
import { markClientAbort, type RequestContext } from './context';
import { continuationOrder, endContinuation, prepareContinuation } from './continuation';
import { ANSWERED, type Decision } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Issue 28, the dispatch's part: a stream cut after text reached the client waits for a
 * continuation. Each round decides whether one goes (seam, limits, deadline) and where, then
 * tries candidates from there through the usual attempt (stages, call, relay) until one answers;
 * the stream ends with its error event when none can.
 */
export async function continueStream(
  ctx: RequestContext,
  deps: PipelineDeps,
  candidates: readonly Candidate[],
  cutAt: number,
  attempt: (c: Candidate) => Promise<'done' | 'next' | 'retry'>,
): Promise<Decision> {
  const k = ctx.seam!;
  let at = cutAt;
  while (k.seam.open && !ctx.clientGone) {
    const d = decideContinuation(
      {
        maxContinuations: ctx.continuation?.maxContinuations ?? null,
        used: k.seam.count,
        chars: k.seam.partial.length,
        at: k.seam.at,
        stopped: k.seam.finished,
        errorClass: k.seam.cut.reason,
        deadline: ctx.started + deps.timeouts().totalMs,
      },
      ctx.now(),
    );
    if (d.kind === 'end') {
      endContinuation(ctx, k, d.reason);
      break;
    }
    let answered = false;
    for (const i of continuationOrder(candidates.length, at, d.sameTarget)) {
      if (ctx.clientGone) break;
      const c = candidates[i]!;
      try {
        prepareContinuation(ctx, c, k);
      } catch (err) {
        if (!(err instanceof TranslationError)) throw err;
        continue;
      }
      const cut = k.seam.cut;
      if ((await attempt(c)) !== 'done') continue;
      answered = true;
      at = i;
      deps.continued?.({ candidate: c, cut, continuation: k.seam.count });
      break;
    }
    if (!answered && !ctx.clientGone) {
      endContinuation(ctx, k, 'no target could continue the stream');
      break;
    }
  }
  if (ctx.clientGone) markClientAbort(ctx);
  return ANSWERED;
}

/** A continuation's stream is the client's already: anything short of an answer moves on. */
export function afterContinuation(
  ctx: RequestContext,
  a: Attempt,
  outcome: AttemptOutcome,
): 'done' | 'next' {
  const kind = outcome.kind;
  if (kind === 'served' || kind === 'broke' || kind === 'tripped' || kind === 'gone') return 'done';
  const why = kind === 'unreachable' ? `: ${outcome.failure.message}` : '';
  ctx.steps.push(`${a.label} could not continue the stream (${kind}${why})`);
  return 'next';
}
