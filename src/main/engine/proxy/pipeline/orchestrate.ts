import type { AttemptStage } from './attempt';
import type { RequestContext, RequestStage } from './context';
import { relaySession, rememberRelay } from './context-relay';
import { CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';
import { fuse } from './fusion';
import type { Orchestration } from './multi-call';
import { refine } from './refine';

/**
 * Request stage, after strategy and before dispatch: the strategies that call upstream more
 * than once per request (fusion, pipeline, context-relay) make their internal calls here, then
 * leave the final call (the one the client sees, streamed if it asked) to the dispatch, with
 * the request rewritten and the candidates set.
 */
export function orchestrate(stages: readonly AttemptStage[]): RequestStage {
  return {
    name: 'orchestrate',
    run(ctx: RequestContext, deps: PipelineDeps): Decision | Promise<Decision> {
      const combo = ctx.combo;
      if (!combo || ctx.endpoint.countTokens) return CONTINUE;
      const o: Orchestration = { ctx, deps, stages, combo };
      if (combo.strategy === 'fusion') return fuse(o);
      if (combo.strategy === 'pipeline') return refine(o);
      if (combo.strategy === 'context-relay') return relaySession(o);
      return CONTINUE;
    },
    after(ctx: RequestContext, deps: PipelineDeps): void {
      if (ctx.combo?.strategy === 'context-relay') rememberRelay(ctx, deps);
    },
  };
}
