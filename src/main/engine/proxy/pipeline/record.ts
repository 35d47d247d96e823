import { redactSecrets } from '../../logger';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Request stage: exactly one log row per request, whatever happened after it. It is first in
 * the list so that its `after` runs last, when everything else has recorded its outcome.
 */
export const record: RequestStage = {
  name: 'record',
  run: () => CONTINUE,
  after(ctx: RequestContext, deps: PipelineDeps): void {
    const candidate = ctx.served;
    deps.record({
      at: ctx.started,
      clientFormat: ctx.endpoint.format,
      modelRequested: ctx.model,
      target: candidate?.target.label ?? null,
      provider: candidate?.target.provider.id ?? null,
      connection: candidate?.connection.id ?? null,
      status: ctx.status || 500,
      latencyMs: deps.clock.now() - ctx.started,
      ttfbMs: ctx.ttfb,
      stream: ctx.stream,
      bytesIn: ctx.bytesIn,
      bytesOut: ctx.bytesOut,
      inputTokens: ctx.usage.inputTokens,
      outputTokens: ctx.usage.outputTokens,
      cachedTokens: ctx.usage.cachedTokens,
      errorClass: ctx.errorClass,
      errorMessage: ctx.errorMessage ? redactSecrets(ctx.errorMessage).slice(0, 500) : null,
      decision: ctx.steps.length > 0 ? ctx.steps.join('; ') : null,
      egressIp: ctx.egressIp,
    });
  },
};
