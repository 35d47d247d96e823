import { createHash } from 'node:crypto';
import type { ComboConfig } from '../../../../shared/contract';
import type { CallLearning } from '../../routing/signals';
import { STRATEGY, type Strategy, type StrategyRequest } from '../../routing/strategies';
import { ASSUMED_OUTPUT_TOKENS } from '../../routing/strategies/cost';
import type { Attempt, CallOutcome } from './attempt';
import { markClientAbort, type RequestContext, type RequestStage } from './context';
import { ANSWERED, CONTINUE, type Decision, invalid } from './decision';
import type { PipelineDeps } from './deps';
import { inputTokensOf, irOf } from './request-ir';

/** The request as strategies see it: parsed, counted and hashed only if one asks. */
function strategyRequest(ctx: RequestContext, combo: ComboConfig): StrategyRequest {
  const parsed = () => irOf(ctx);
  let prefix: string | null | undefined;
  return {
    combo: combo.name,
    options: combo.options ?? {},
    client: ctx.key?.name ?? null,
    inputTokens: () => inputTokensOf(ctx),
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

/** The strategy's order and reason, or its refusal (context-optimized). */
function order(
  ctx: RequestContext,
  deps: PipelineDeps,
  combo: ComboConfig,
  request: StrategyRequest,
  decide: Strategy,
): Decision {
  const signals = deps.routing!;
  const now = ctx.now();
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
  if (combo.strategy === 'cache-optimized') ctx.cachePrefix = request.prefix();
  return CONTINUE;
}

/** Tokens added to a key's deficit each round when quota-share counts tokens. */
const TOKEN_QUANTUM = 8192;

/**
 * quota-share: beyond the combo's summed `maxConcurrent`, a request waits its key's turn (deficit
 * round robin between gateway keys); one that waits longer than `concurrencyLimit.waitTimeoutMs`
 * goes ahead anyway. Without a limit on every connection there is nothing to share.
 */
function waitForShare(
  ctx: RequestContext,
  deps: PipelineDeps,
  combo: ComboConfig,
  request: StrategyRequest,
): Decision | Promise<Decision> {
  const share = deps.share;
  if (!share || combo.options?.quotaShareConcurrencyLimit?.enabled === false) return CONTINUE;
  const limits = new Map(ctx.candidates.map((c) => [c.connection.id, c.connection.maxConcurrent]));
  if ([...limits.values()].some((n) => !n)) return CONTINUE;
  const tokens = combo.options?.unit === 'tokens';
  const abort = new AbortController();
  const gone = () => abort.abort();
  const got = share.acquire({
    combo: combo.name,
    key: ctx.key?.name ?? '-',
    cost: tokens ? request.inputTokens() + (request.maxOutputTokens() ?? ASSUMED_OUTPUT_TOKENS) : 1,
    quantum: tokens ? TOKEN_QUANTUM : 1,
    capacity: [...limits.values()].reduce((sum: number, n) => sum + (n ?? 0), 0),
    signal: abort.signal,
  });
  if (!(got instanceof Promise)) {
    ctx.shareTicket = got;
    return CONTINUE;
  }
  ctx.res.once('close', gone);
  return got.then((outcome) => {
    ctx.res.off('close', gone);
    if (outcome.kind === 'cancelled') {
      markClientAbort(ctx);
      return ANSWERED;
    }
    ctx.shareTicket = outcome.ticket;
    ctx.steps.push(
      outcome.kind === 'admitted'
        ? `waited ${outcome.waitedMs} ms for ${ctx.key ? `key ${ctx.key.name}'s` : 'its'} turn in the share`
        : `waited ${outcome.waitedMs} ms for a share; went ahead (fail-open)`,
    );
    return CONTINUE;
  });
}

/**
 * Request stage: the combo's strategy orders the candidates the earlier stages left (resilience
 * takes out the ineligible ones per attempt), and says why in the decision header; failover then
 * walks that order. A session pinned to a connection still goes there first (dispatch).
 */
export const strategy: RequestStage = {
  name: 'strategy',
  run(ctx: RequestContext, deps: PipelineDeps): Decision | Promise<Decision> {
    const signals = deps.routing;
    const combo = ctx.combo;
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
    const request = strategyRequest(ctx, combo);
    if (combo.strategy !== 'quota-share') return order(ctx, deps, combo, request, decide);
    // The wait comes first, so the connections are chosen by their load once it is our turn.
    const waited = waitForShare(ctx, deps, combo, request);
    if (!(waited instanceof Promise)) return order(ctx, deps, combo, request, decide);
    return waited.then((d) =>
      d.kind === 'continue' ? order(ctx, deps, combo, request, decide) : d,
    );
  },
  after(ctx: RequestContext, deps: PipelineDeps): void {
    ctx.shareTicket?.release();
    ctx.shareTicket = null;
    const served = ctx.served;
    const combo = served && deps.routing ? ctx.combo : null;
    if (!served || !combo || combo.strategy === 'priority') return;
    const ok = ctx.status >= 200 && ctx.status < 400 && ctx.errorClass === null;
    deps.routing!.settled(combo.name, served.target.label, ok, ctx.cachePrefix, ctx.now());
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
