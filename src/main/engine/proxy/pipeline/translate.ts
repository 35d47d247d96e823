import type { CatalogProvider } from '../../config/catalog';
import type { Candidate } from '../../routing/resolve';
import {
  customToolsOf,
  droppedHeader,
  emitRequest,
  parseRequest,
  TranslationError,
  upstreamFormatFor,
  type WireFormat,
} from '../../translate';
import type { GatewayError } from '../../wire/client-errors';
import type { Attempt, AttemptStage } from './attempt';
import { bodyOf, type RequestContext, type TranslatedBody } from './context';
import { CONTINUE, type Decision, invalid } from './decision';
import { breakpointsFor, cacheVariant, sessionCacheKey } from './prompt-cache';

/**
 * Attempt stage: a candidate whose provider speaks another API gets the request translated
 * (once per upstream format, kept for the other candidates of that format); one whose format
 * cannot express the request is skipped, and when no candidate is left the client learns why.
 * It runs before the hold and the admission, so no capacity is taken for a request the target
 * cannot be sent.
 */
export const translate: AttemptStage = { name: 'translate', enter: translated };

function translated(a: Attempt): Decision {
  const { ctx, candidate } = a;
  if (wireFor(ctx, candidate) === null) return CONTINUE;
  const failed = translateFor(ctx, [candidate.target]);
  if (!('status' in failed)) return CONTINUE;
  a.dispatch.untranslatable = failed;
  // The translation already named the candidate in the steps, with the reason.
  return {
    kind: 'skip',
    reason: 'untranslatable',
    retryAfterMs: null,
    detail: failed.message,
    errorType: null,
    step: null,
  };
}

/** The upstream API a candidate is called in when it is not the client's own, else null. */
export function wireFor(ctx: RequestContext, candidate: Candidate): WireFormat | null {
  return upstreamFormatFor(ctx.endpoint.format, candidate.target.provider.format);
}

/**
 * Where a translated body for a provider is kept in `ctx.translated`: one per upstream API,
 * provider format and cache help, so every provider that would be sent the same body shares it.
 */
export function translationKey(wire: WireFormat | null, provider: CatalogProvider): string {
  return `${wire}|${provider.format}${cacheVariant(provider)}`;
}

export function translatedFor(
  ctx: RequestContext,
  candidate: Candidate,
): TranslatedBody | undefined {
  return ctx.translated?.get(translationKey(wireFor(ctx, candidate), candidate.target.provider));
}

/**
 * Translates the request once per upstream format its targets need, and returns the targets it
 * can be sent to. A target whose format cannot express the request is left out (and named in
 * the steps); when none is left, the answer says why.
 */
export function translateFor(
  ctx: RequestContext,
  targets: Candidate['target'][],
): Candidate['target'][] | GatewayError {
  if (ctx.endpoint.countTokens) return targets;
  const kept: Candidate['target'][] = [];
  let failure: TranslationError | null = null;
  let ir: ReturnType<typeof parseRequest> | null = null;
  for (const t of targets) {
    const wire = upstreamFormatFor(ctx.endpoint.format, t.provider.format);
    const key = translationKey(wire, t.provider);
    if (wire === null || ctx.translated?.has(key)) {
      kept.push(t);
      continue;
    }
    try {
      ir ??= parseRequest(ctx.endpoint.format, bodyOf(ctx), {
        model: ctx.model,
        stream: ctx.stream,
      });
      const emitted = emitRequest(wire, ir.value, t.provider.format, {
        breakpoints: breakpointsFor(t.provider),
      });
      const cacheKey = ir.value.cacheKey === null ? sessionCacheKey(ctx, t.provider) : null;
      if (cacheKey !== null) emitted.value.prompt_cache_key = cacheKey;
      ctx.translated ??= new Map();
      ctx.translated.set(key, {
        wire,
        json: emitted.value,
        dropped: droppedHeader([...ir.dropped, ...emitted.dropped]),
        customTools: customToolsOf(ir.value),
      });
      kept.push(t);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      failure = err;
      ctx.steps.push(`${t.label} skipped (cannot translate: ${err.message})`);
    }
  }
  if (kept.length === 0 && failure) {
    return invalid('translation_unsupported', failure.message, failure.param ?? undefined).error;
  }
  return kept;
}
