import { aliasedModel, routeModel } from '../../routing/resolve';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, invalid, reply } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Request stage: the model names a combo, a `provider/model` or a bare model that exactly one
 * provider lists; its targets expand to candidates (target × connection) in priority order.
 * Translation waits for the candidate about to be tried: the first serves almost every request.
 * The model "default" routes to the active combo (`routing.activeCombo`) when one is set.
 */
export const route: RequestStage = {
  name: 'route',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    const routed = routeModel(
      ctx.catalog,
      aliasedModel(ctx.catalog, ctx.model, deps.activeCombo?.() ?? null),
    );
    if (routed.expansion === null) {
      const { resolution } = routed;
      if (resolution.kind === 'ambiguous') {
        return invalid(
          'ambiguous_model',
          `model "${ctx.model}" is listed by several providers (${resolution.providers.join(', ')}); ` +
            `name one as "provider/${ctx.model}" or define a combo`,
          'model',
        );
      }
      return reply({
        status: 404,
        kind: 'not_found',
        code: 'model_not_found',
        param: 'model',
        message: `model "${ctx.model}" is not known to Breakwater; looked in: ${resolution.lookedIn.join('; ')}`,
      });
    }
    const { resolution } = routed;
    const combo = resolution.combo ? ctx.catalog.combos.get(resolution.combo) : undefined;
    if (combo) {
      ctx.combo = combo;
      ctx.steps.push(`combo ${combo.name} (${combo.strategy})`);
    }
    const { candidates, unexecutable } = routed.expansion;
    if (candidates.length === 0) {
      const reasons = unexecutable.map((u) => `${u.target}: ${u.reason}`).join('; ');
      return reply({
        status: 404,
        kind: 'not_found',
        code: 'no_executable_targets',
        message: `model "${ctx.model}" has no target that can be executed (${reasons || 'no targets'})`,
        extra: {
          diagnostics: {
            poolSize: resolution.targets.length,
            attempted: 0,
            excluded: unexecutable,
          },
        },
      });
    }
    ctx.candidates = candidates;
    if (ctx.endpoint.countTokens) {
      // Only Anthropic (Gemini for Gemini clients) providers count tokens; the others get an
      // estimate (count-tokens.ts).
      const native = candidates.filter((c) => c.target.provider.format === countingFormat(ctx));
      if (native.length > 0) ctx.candidates = native;
    }
    return CONTINUE;
  },
};

/** The provider format that counts a client's tokens natively. */
export function countingFormat(ctx: RequestContext): 'gemini' | 'anthropic' {
  return ctx.endpoint.format === 'gemini' ? 'gemini' : 'anthropic';
}
