import { estimateInputTokens, isJsonObject, parseRequest } from '../../translate';
import { emptyUsage } from '../../usage/usage';
import { headerValue } from '../../wire/header-value';
import { bodyOf, type RequestContext, type RequestStage } from './context';
import { ANSWERED, CONTINUE, type Decision } from './decision';
import { countingFormat } from './route';

/**
 * Request stage: `count_tokens` for a model whose first target is not an Anthropic provider.
 * There is no such endpoint upstream, so the gateway estimates and says so
 * (`X-Breakwater-Token-Count: estimate`).
 */
export const countTokens: RequestStage = {
  name: 'count-tokens',
  run(ctx: RequestContext): Decision {
    const candidate = ctx.candidates[0]!;
    if (!ctx.endpoint.countTokens || candidate.target.provider.format === countingFormat(ctx)) {
      return CONTINUE;
    }
    const gemini = ctx.endpoint.format === 'gemini';
    // Gemini's countTokens takes contents, or a whole request under `generateContentRequest`.
    const inner = bodyOf(ctx).generateContentRequest;
    const request = gemini && isJsonObject(inner) ? inner : bodyOf(ctx);
    const tokens = estimateInputTokens(parseRequest(ctx.endpoint.format, request).value);
    const body = JSON.stringify(gemini ? { totalTokens: tokens } : { input_tokens: tokens });
    ctx.served = candidate;
    ctx.status = 200;
    ctx.usage = { ...emptyUsage(), inputTokens: tokens };
    ctx.steps.push(`${candidate.target.label} estimated (no count_tokens upstream)`);
    if (ctx.clientGone) return ANSWERED;
    ctx.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-breakwater-decision': headerValue(ctx.steps.join('; ')),
      'x-breakwater-token-count': 'estimate',
    });
    ctx.res.end(body);
    ctx.bytesOut = Buffer.byteLength(body);
    return ANSWERED;
  },
};
