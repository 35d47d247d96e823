import { bodyOf, type RequestContext, type RequestStage } from './context';
import { CONTINUE, type Decision } from './decision';

const BACKGROUND_KEY = Buffer.from('"background"');

/**
 * Request stage (RESILIENCE.md §11): a Responses request with `background: true` is served
 * synchronously — it runs to completion and the answer is the completed response — with a
 * warning header, instead of being refused where it is translated (no provider keeps the
 * response for a later poll on Breakwater's side). A byte search first, so other requests are
 * not parsed for it.
 */
export const background: RequestStage = {
  name: 'background',
  run(ctx: RequestContext): Decision {
    if (ctx.endpoint.format !== 'openai-responses' || !ctx.raw.includes(BACKGROUND_KEY)) {
      return CONTINUE;
    }
    const body = bodyOf(ctx);
    if (body.background !== true) return CONTINUE;
    const { background: _, ...rest } = body;
    ctx.parsed = rest;
    ctx.raw = Buffer.from(JSON.stringify(rest));
    ctx.warnings = [
      ...(ctx.warnings ?? []),
      'background: true is served synchronously; the answer is the completed response',
    ];
    ctx.steps.push('background served synchronously');
    return CONTINUE;
  },
};
