import { checkCapabilities } from '../../routing/capabilities';
import { aliasedModel, routeModel } from '../../routing/resolve';
import type { RequestFacts } from '../../routing/rules';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, invalid, reply } from './decision';
import type { PipelineDeps } from './deps';
import { factsOf, ruleFor } from './route-rules';

/**
 * Request stage: the model names a combo, a `provider/model` or a bare model that exactly one
 * provider lists; its targets expand to candidates (target × connection) in priority order.
 * Translation waits for the candidate about to be tried: the first serves almost every request.
 * The model "default" routes to the active combo (`routing.activeCombo`) when one is set.
 * Routing rules come first: the first that holds names what to route to instead. Targets whose
 * model is known to lack what the request needs are left out here, without a call.
 */
export const route: RequestStage = {
  name: 'route',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    let name = aliasedModel(ctx.catalog, ctx.model, deps.activeCombo?.() ?? null);
    let facts: RequestFacts | undefined;
    const factsNow = () => {
      facts ??= factsOf(ctx);
      return facts;
    };
    // Without rules this is the one branch they cost.
    if (ctx.catalog.rules.length > 0) {
      const rule = ruleFor(ctx, factsNow());
      if (rule) {
        ctx.steps.push(`rule ${rule.name} → ${rule.use}`);
        name = rule.use;
      }
    }
    const routed = routeModel(ctx.catalog, name);
    if (routed.expansion === null) {
      const { resolution } = routed;
      if (resolution.kind === 'ambiguous') {
        return invalid(
          'ambiguous_model',
          `model "${name}" is listed by several providers (${resolution.providers.join(', ')}); ` +
            `name one as "provider/${ctx.model}" or define a combo`,
          'model',
        );
      }
      return reply({
        status: 404,
        kind: 'not_found',
        code: 'model_not_found',
        param: 'model',
        message: `model "${name}" is not known to Breakwater; looked in: ${resolution.lookedIn.join('; ')}`,
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
    const capable = checkCapabilities(ctx.catalog, candidates, factsNow);
    if (capable.kind !== 'all') ctx.steps.push(...capable.skipped);
    if (capable.kind === 'none') return noCapableTarget(name, capable.needs, capable.skipped);
    ctx.candidates = capable.kind === 'some' ? capable.kept : candidates;
    if (ctx.endpoint.countTokens) {
      // Only Anthropic (Gemini for Gemini clients) providers count tokens; the others get an
      // estimate (count-tokens.ts).
      const native = ctx.candidates.filter((c) => c.target.provider.format === countingFormat(ctx));
      if (native.length > 0) ctx.candidates = native;
    }
    return CONTINUE;
  },
};

/** 400 `no_capable_target`: every target lacks something the request needs. */
function noCapableTarget(
  model: string,
  needs: readonly string[],
  skipped: readonly string[],
): Decision {
  return reply({
    status: 400,
    kind: 'invalid_request',
    code: 'no_capable_target',
    message: `no target of "${model}" can serve this request: it needs ${needs.join(', ')} (${skipped.join('; ')})`,
    extra: { needs },
  });
}

/** The provider format that counts a client's tokens natively. */
export function countingFormat(ctx: RequestContext): 'gemini' | 'anthropic' {
  return ctx.endpoint.format === 'gemini' ? 'gemini' : 'anthropic';
}
