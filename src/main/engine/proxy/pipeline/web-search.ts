import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  createStreamWriter,
  customToolsOf,
  emitResponse,
  parseRequest,
  requestEcho,
} from '../../translate';
import type { IrRequest, IrResponse, IrWebSearch, StreamWriter } from '../../translate/ir';
import { responseEvents } from '../../translate/stream';
import type { Usage } from '../../usage/usage';
import { maySearch, runsNatively, type SearchTool, searchToolOf } from '../../websearch/detect';
import { emulateSearch } from '../../websearch/emulate';
import { withSearches } from '../../websearch/render';
import type { SearchAsk } from '../../websearch/service';
import type { SearchOutcome } from '../../websearch/types';
import type { GatewayError } from '../../wire/client-errors';
import { headerValue } from '../../wire/header-value';
import type { AttemptStage } from './attempt';
import { bodyOf, markClientAbort, type RequestContext, type RequestStage } from './context';
import { ANSWERED, CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';
import { internalCall } from './internal-call';

/**
 * Request stage, after orchestrate and before dispatch: a request whose search tool the target
 * cannot run (Anthropic's `web_search_20250305`, Responses' `web_search` or Gemini's
 * `googleSearch`, on a provider of another format)
 * is served by the gateway's own search loop (websearch/emulate.ts): the model's calls are
 * internal calls through the dispatch, the searches run on the configured backend, and the
 * answer is written here in the client's format, the searches in front of it. A request without
 * such a tool costs one byte scan.
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
  const backend = deps.webSearch?.backendName() ?? null;
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  let turn = 0;
  ctx.steps.push(`${firstTarget(ctx)} runs no search tool: the gateway searches`);
  const emulated = await emulateSearch<GatewayError>(parsed.value, tool, {
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
    searched: (s) => out.searched(s),
    newId: () => `srvtoolu_${randomBytes(12).toString('hex')}`,
  });
  const searches = emulated.searches;
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
  out.finish(emulated.final, searches);
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

/** The client's answer: streamed as the searches happen, or whole at the end. */
class SearchAnswer {
  private writer: StreamWriter | null = null;
  private readonly opts;
  /** The answer's id and model are the client's, whichever call wrote it. */
  private readonly id: string;

  constructor(
    private readonly ctx: RequestContext,
    ir: IrRequest,
    body: Record<string, unknown>,
  ) {
    this.id = messageId(ctx);
    const echo = requestEcho(ctx.endpoint.format, body);
    this.opts = {
      nowMs: ctx.started,
      now: ctx.now,
      includeUsage: false,
      customTools: customToolsOf(ir),
      ...(echo ? { echo } : {}),
    };
  }

  searched(s: IrWebSearch): void {
    if (!this.ctx.stream || this.ctx.clientGone) return;
    this.write(this.streamWriter().write({ type: 'web_search', search: s }));
  }

  fail(error: GatewayError): Decision {
    if (!this.writer) return reply(error);
    const { ctx } = this;
    ctx.status = error.status;
    ctx.errorClass = error.code;
    ctx.errorMessage = error.message;
    this.write(this.writer.write({ type: 'error', error }));
    ctx.res.end();
    return ANSWERED;
  }

  finish(answer: IrResponse, searches: IrWebSearch[]): void {
    const { ctx } = this;
    const final = { ...answer, id: this.id, model: ctx.model };
    ctx.status = 200;
    if (ctx.stream) {
      const w = this.streamWriter();
      let s = '';
      for (const ev of responseEvents(final)) s += w.write(ev);
      this.write(s + w.finish());
      ctx.res.end();
      return;
    }
    const whole = withSearches(
      ctx.endpoint.format,
      emitResponse(ctx.endpoint.format, final, this.opts),
      searches,
    );
    const text = JSON.stringify(whole);
    head(ctx, ctx.res, 'application/json');
    ctx.res.end(text);
    ctx.bytesOut += Buffer.byteLength(text);
  }

  private streamWriter(): StreamWriter {
    if (this.writer) return this.writer;
    const { ctx } = this;
    this.writer = createStreamWriter(ctx.endpoint.format, this.opts);
    head(ctx, ctx.res, 'text/event-stream; charset=utf-8');
    this.write(this.writer.write({ type: 'start', id: this.id, model: ctx.model, usage: null }));
    return this.writer;
  }

  private write(s: string): void {
    if (s === '' || this.ctx.clientGone) return;
    this.ctx.res.write(s);
    this.ctx.bytesOut += Buffer.byteLength(s);
  }
}

function messageId(ctx: RequestContext): string {
  const hex = randomBytes(12).toString('hex');
  const format = ctx.endpoint.format;
  return format === 'anthropic' ? `msg_${hex}` : format === 'gemini' ? hex : `resp_${hex}`;
}

function head(ctx: RequestContext, res: ServerResponse, type: string): void {
  ctx.ttfb ??= ctx.now() - ctx.started;
  res.writeHead(200, {
    'content-type': type,
    'cache-control': 'no-cache',
    'x-breakwater-decision': headerValue(ctx.steps.join('; ')),
    'x-breakwater-web-search': 'gateway',
    ...(ctx.served ? { 'x-breakwater-connection': headerValue(ctx.served.connection.id) } : {}),
  });
}
