import { createHash } from 'node:crypto';
import type { ComboConfig } from '../../../../shared/contract';
import { routeModel } from '../../routing/resolve';
import type { CallLearning } from '../../routing/signals';
import { STRATEGY, type StrategyRequest } from '../../routing/strategies';
import { estimateInputTokens, parseRequest } from '../../translate';
import type { Attempt, CallOutcome } from './attempt';
import { bodyOf, type RequestContext, type RequestStage } from './context';
import { CONTINUE, type Decision, invalid } from './decision';
import type { PipelineDeps } from './deps';

function comboOf(ctx: RequestContext): ComboConfig | undefined {
  // A cache hit: the route stage resolved the same model a moment ago.
  const combo = routeModel(ctx.catalog, ctx.model).resolution;
  return combo.kind === 'targets' && combo.combo ? ctx.catalog.combos.get(combo.combo) : undefined;
}

/** The request as strategies see it: parsed, counted and hashed only if one asks. */
function strategyRequest(ctx: RequestContext, combo: ComboConfig): StrategyRequest {
  let ir: ReturnType<typeof parseRequest>['value'] | undefined;
  const parsed = () => {
    ir ??= parseRequest(ctx.endpoint.format, bodyOf(ctx)).value;
    return ir;
  };
  let tokens: number | undefined;
  let prefix: string | null | undefined;
  return {
    combo: combo.name,
    options: combo.options ?? {},
    client: ctx.key?.name ?? null,
    inputTokens: () => {
      tokens ??= estimateInputTokens(parsed());
      return tokens;
    },
    maxOutputTokens: () => parsed().maxTokens,
    prefix: () => {
      if (prefix === undefined) {
        const { system, tools, messages } = parsed();
        prefix =
          messages.length === 0
            ? null
            : createHash('sha256')
                .update(JSON.stringify([system, tools, messages[0]]))
                .digest('hex');
      }
      return prefix;
    },
  };
}

/** The prefix hash, kept from `run` for `after` (the body is let go once the answer starts). */
const prefixes = new WeakMap<RequestContext, string | null>();

/**
 * Request stage: the combo's strategy orders the candidates the earlier stages left (resilience
 * takes out the ineligible ones per attempt), and says why in the decision header; failover then
 * walks that order. A session pinned to a connection still goes there first (dispatch).
 */
export const strategy: RequestStage = {
  name: 'strategy',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    const signals = deps.routing;
    const combo = comboOf(ctx);
    const decide = combo && STRATEGY[combo.strategy];
    // count_tokens is no generation: it must not take a turn, a deck card or a weight draw.
    if (
      !signals ||
      !combo ||
      !decide ||
      combo.strategy === 'priority' ||
      ctx.endpoint.countTokens
    ) {
      return CONTINUE;
    }
    const now = ctx.now();
    const request = strategyRequest(ctx, combo);
    const view = signals.view(
      {
        inFlight: (connection) => deps.inFlight.get(connection) ?? 0,
        // Cooling or locked out counts too: the attempt stages would only skip it.
        saturated: (c) =>
          deps.flow.saturated(c.connection) || deps.resilience.exclusion(c, now) !== null,
      },
      ctx.catalog,
      now,
    );
    const result = decide(ctx.candidates, view, request, signals.rng);
    if ('refuse' in result) {
      ctx.steps.push(`refused (${result.refuse.code})`);
      return invalid(result.refuse.code, result.refuse.message, 'messages');
    }
    ctx.candidates = result.order;
    ctx.steps.push(result.reason);
    const distinct = new Set(result.order.map((c) => c.target.label)).size;
    signals.routed(combo.name, result.order[0]!.target.label, distinct, now);
    if (combo.strategy === 'cache-optimized') prefixes.set(ctx, request.prefix());
    return CONTINUE;
  },
  after(ctx: RequestContext, deps: PipelineDeps): void {
    const served = ctx.served;
    const combo = served && deps.routing ? comboOf(ctx) : undefined;
    if (!served || !combo || combo.strategy === 'priority') return;
    const ok = ctx.status >= 200 && ctx.status < 400 && ctx.errorClass === null;
    deps.routing!.settled(combo.name, served.target.label, ok, prefixes.get(ctx) ?? null);
  },
};

/** Routing learns an upstream call's latency, failure and announced quota (from dispatch). */
export function learnCall(a: Attempt, called: CallOutcome): void {
  const routing = a.deps.routing;
  if (
    !routing ||
    (called.kind !== 'answered' && called.kind !== 'refused' && called.kind !== 'unreachable')
  ) {
    return;
  }
  const now = a.ctx.now();
  const learning: CallLearning = {
    ok: called.kind === 'answered',
    latencyMs: now - a.startedAt,
    headers:
      called.kind === 'answered'
        ? called.upstream.headers
        : called.kind === 'refused'
          ? called.held.headers
          : null,
  };
  routing.learnCall(a.candidate, learning, now);
}
