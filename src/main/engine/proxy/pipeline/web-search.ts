import { randomBytes } from 'node:crypto';
import { parseRequest } from '../../translate';
import type { Usage } from '../../usage/usage';
import { maySearch, runsNatively, type SearchTool, searchToolOf } from '../../websearch/detect';
import { type Emulated, emulateSearch, searchesOf } from '../../websearch/emulate';
import { DEFAULT_KEEP_ALIVE_MS, type SearchAsk } from '../../websearch/service';
import type { SearchOutcome } from '../../websearch/types';
import type { GatewayError } from '../../wire/client-errors';
import type { AttemptStage } from './attempt';
import { bodyOf, markClientAbort, type RequestContext, type RequestStage } from './context';
import { ANSWERED, CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';
import { internalCall } from './internal-call';
import { SearchAnswer } from './web-search-answer';

/**
 * Request stage, after orchestrate and before dispatch: a request whose search tool the target
 * cannot run (Anthropic's `web_search_20250305`, Responses' `web_search` or Gemini's
 * `googleSearch`, on a provider of another format) is served by the gateway's own search loop
 * (websearch/emulate.ts): the model's calls are internal calls through the dispatch, the
 * searches run on the configured backend, and the answer is written here in the client's
 * format, the searches in front of it. A request without such a tool costs one byte scan.
 */
export function webSearch(stages: readonly AttemptStage[]): RequestStage {
  return {
    name: 'webSearch',
    run(ctx: RequestContext, deps: PipelineDeps): Decision | Promise<Decision> {
      const format = ctx.endpoint.format;
      if (format === 'openai-chat' || ctx.endpoint.countTokens) return CONTINUE;
      const first = ctx.candidates[0];
      if (!first || runsNatively(format, first.target.provider.format)) return CONTINUE;
      if (!maySearch(format, ctx.raw)) return CONTINUE;
      const tool = searchToolOf(format, bodyOf(ctx));
      return tool ? serve(ctx, deps, stages, tool) : CONTINUE;
    },
  };
}

async function serve(
  ctx: RequestContext,
  deps: PipelineDeps,
  stages: readonly AttemptStage[],
  tool: SearchTool,
): Promise<Decision> {
  const format = ctx.endpoint.format;
  const body = bodyOf(ctx);
  const parsed = parseRequest(
    format,
    body,
    ctx.endpoint.gemini ?? { model: ctx.model, stream: ctx.stream },
  );
  const out = new SearchAnswer(ctx, parsed.value, body);
  const stopKeepAlive = out.keepAlive(deps.webSearch?.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
  const backend = deps.webSearch?.backendName() ?? null;
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  let turn = 0;
  ctx.steps.push(`${firstTarget(ctx)} runs no search tool: the gateway searches`);
  let emulated: Emulated<GatewayError>;
  try {
    emulated = await emulateSearch<GatewayError>(parsed.value, tool, {
      call: async (ir) => {
        if (ctx.clientGone) return { ok: false, error: GONE };
        turn++;
        const a = await internalCall(ctx, deps, stages, {
          role: `web search turn ${turn}`,
          ref: ctx.model,
          candidates: ctx.candidates,
          budgetEnd: ctx.started + deps.failoverBudgetMs(),
          ir,
        });
        if (!a.ok) return { ok: false, error: a.error };
        ctx.served = a.served;
        return { ok: true, response: a.response };
      },
      search: (ask) => runSearch(ctx, deps, ask, gone.signal),
      shown: (item) => out.shown(item),
      newId: () => `srvtoolu_${randomBytes(12).toString('hex')}`,
    });
  } finally {
    stopKeepAlive();
  }
  const searches = searchesOf(emulated.shown);
  const failed = searches.filter((s) => s.error?.code === 'unavailable');
  ctx.steps.push(
    `web search by the gateway (${backend ?? 'no backend'}): ${searches.length - failed.length} of ${searches.length} searches ran`,
  );
  if (failed[0]?.error) {
    ctx.steps.push(failed[0].error.message);
    deps.webSearchUnavailable?.(backend, failed[0].error.message);
  }
  if (ctx.clientGone) {
    markClientAbort(ctx);
    return ANSWERED;
  }
  // Each model call counted its tokens in its own row: this one adds none (and estimates none).
  ctx.usage = { ...ZERO_USAGE };
  if (!emulated.ok) return out.fail(emulated.error);
  out.finish(emulated.final, emulated.shown);
  return ANSWERED;
}

function firstTarget(ctx: RequestContext): string {
  return ctx.candidates[0]?.target.label ?? ctx.model;
}

const GONE: GatewayError = {
  status: 499,
  kind: 'upstream',
  code: 'client_abort',
  message: 'the client went away',
};

const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

async function runSearch(
  ctx: RequestContext,
  deps: PipelineDeps,
  ask: SearchAsk,
  signal: AbortSignal,
): Promise<SearchOutcome> {
  if (!deps.webSearch) return { ok: false, reason: 'no search backend is configured' };
  const found = await deps.webSearch.search(ask, signal);
  if (!found.ok) deps.log.warn(`web search for "${ctx.model}" failed: ${found.reason}`);
  return found;
}
