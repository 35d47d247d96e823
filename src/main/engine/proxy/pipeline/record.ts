import { redactSecrets } from '../../logger';
import { sampleOf } from '../../usage/accounting';
import { buildCapture, keeps } from './capture-build';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE } from './decision';
import type { PipelineDeps } from './deps';

const NO_PRICE = () => null;

/**
 * Request stage: exactly one log row per request, whatever happened after it. It is first in
 * the list so that its `after` runs last, when everything else has recorded its outcome.
 */
export const record: RequestStage = {
  name: 'record',
  run: () => CONTINUE,
  after: writeLogRow,
};

/**
 * The log row and usage sample of one upstream exchange: a client request, or an internal call
 * a multi-call strategy made for one (orchestrate.ts), which is priced by its own model.
 */
export function writeLogRow(ctx: RequestContext, deps: PipelineDeps): number {
  const candidate = ctx.served;
  const held = ctx.captured;
  ctx.captured = null;
  const status = ctx.status || 500;
  const keyName = ctx.key?.name ?? null;
  const sample = sampleOf(
    {
      at: ctx.started,
      dims: {
        provider: candidate?.target.provider.id ?? '',
        connection: candidate?.connection.id ?? '',
        model: candidate?.target.model ?? ctx.model,
        combo: ctx.combo?.name ?? '',
        keyName: keyName ?? '',
        session: ctx.session ?? '',
      },
      usage: ctx.usage,
      status,
      bytesIn: ctx.bytesIn,
      // A Chat stream's estimate counts its content, not the framing of its events.
      bytesOut: ctx.contentBytes ?? ctx.bytesOut,
      countOnly: ctx.endpoint.countTokens,
    },
    deps.priceOf ?? NO_PRICE,
  );
  return deps.record(
    {
      at: ctx.started,
      clientFormat: ctx.endpoint.format,
      modelRequested: ctx.model,
      target: candidate?.target.label ?? null,
      provider: candidate?.target.provider.id ?? null,
      connection: candidate?.connection.id ?? null,
      status,
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
      keyName,
      cacheWriteTokens: ctx.usage.cacheWriteTokens,
      reasoningTokens: ctx.usage.reasoningTokens,
      costUsd: sample.costUsd,
    },
    sample,
    held && keeps(ctx, held) ? buildCapture(ctx, held) : null,
  );
}
