import { promptBlocks } from '../../translate/prompt-blocks';
import { promptTokens } from '../../usage/usage';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE } from './decision';
import type { PipelineDeps } from './deps';

const FIVE_MINUTES = 5 * 60_000;
const HOUR = 60 * 60_000;
/** OpenAI keeps an in-memory prefix 5 to 10 minutes after its last use. */
const OPENAI_IN_MEMORY = 10 * 60_000;
const DAY = 24 * HOUR;

/**
 * Request stage: a session's prompt is digested block by block before it is sent; once it is
 * answered, the cache watch learns how much of it the provider read from its cache, and a turn
 * that read far less than the previous turn cached becomes a `cache.lost` event and a note in
 * the request log saying why (docs/usage.md). A request without a session costs a branch.
 */
export const cacheWatch: RequestStage = {
  name: 'cache-watch',
  run(ctx: RequestContext, deps: PipelineDeps) {
    if (ctx.session === null || !deps.cacheWatch?.enabled() || ctx.endpoint.countTokens) {
      return CONTINUE;
    }
    // Taken before the body is let go (`committed`), for `after`; on the context rather than in
    // a map keyed by it: a WeakMap entry per request makes every young collection dearer.
    ctx.cacheBlocks = promptBlocks(ctx.raw);
    return CONTINUE;
  },
  after(ctx: RequestContext, deps: PipelineDeps) {
    const prompt = ctx.cacheBlocks;
    const served = ctx.served;
    const session = ctx.session;
    if (!prompt || !served || session === null || ctx.status < 200 || ctx.status >= 300) return;
    const total = promptTokens(ctx.usage);
    if (!total) return;
    const anthropic = served.target.provider.format === 'anthropic';
    const longer = prompt.retention === '24h';
    const loss = deps.cacheWatch!.watch.note(
      session,
      {
        at: ctx.started,
        model: ctx.model,
        connection: served.connection.id,
        target: served.target.label,
        promptTokens: total,
        readTokens: ctx.usage.cachedTokens ?? 0,
        writeTokens: ctx.usage.cacheWriteTokens ?? 0,
        blocks: prompt.digests,
        ttlMs: anthropic
          ? longer || prompt.hourTtl
            ? HOUR
            : FIVE_MINUTES
          : longer
            ? DAY
            : OPENAI_IN_MEMORY,
        moved: ctx.cacheMove ?? null,
      },
      ctx.now(),
    );
    if (!loss) return;
    ctx.steps.push(
      `cache lost: ${loss.detail} (read ${loss.readTokens} of ${loss.expectedTokens} cached tokens)`,
    );
    deps.cacheWatch!.lost(loss);
  },
};
