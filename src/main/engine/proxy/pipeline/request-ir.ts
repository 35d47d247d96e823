import { estimateInputTokens, parseRequest } from '../../translate';
import type { IrRequest } from '../../translate/ir';
import { bodyOf, type RequestContext } from './context';

/**
 * The request in the internal form, made once whichever stage asks first (rules, the
 * strategy, the budget reservation) and shared by the others.
 */
export function irOf(ctx: RequestContext): IrRequest {
  ctx.ir ??= parseRequest(ctx.endpoint.format, bodyOf(ctx)).value;
  return ctx.ir;
}

/** The request's estimated input tokens, counted once. */
export function inputTokensOf(ctx: RequestContext): number {
  ctx.inputTokens ??= estimateInputTokens(irOf(ctx));
  return ctx.inputTokens;
}
