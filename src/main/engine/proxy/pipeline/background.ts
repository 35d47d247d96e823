import { bodyOf, type RequestContext, type RequestStage } from './context';
import { CONTINUE, type Decision } from './decision';

/**
 * Request stage (RESILIENCE.md §11): a Responses request with `background: true` is served
 * synchronously — it runs to completion and the answer is the completed response — with a
 * warning header, instead of being refused where it is translated (no provider keeps the
 * response for a later poll on Breakwater's side). Parse found the member in its pass over the
 * body, so other requests cost nothing here.
 */
export const background: RequestStage = {
  name: 'background',
  run(ctx: RequestContext): Decision {
    if (!ctx.background) return CONTINUE;
    const { background: _, ...rest } = bodyOf(ctx);
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
