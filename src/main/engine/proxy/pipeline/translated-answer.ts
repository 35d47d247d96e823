import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Candidate } from '../../routing/resolve';
import {
  type IrUsage,
  isJsonObject,
  requestEcho,
  type WireFormat,
  type WriterOptions,
} from '../../translate';
import { type CancelState, readBounded } from '../../upstream/attempt';
import { clientResponseHeaders } from '../../upstream/headers';
import type { UpstreamResponse } from '../../upstream/pools';
import type { GatewayError } from '../../wire/client-errors';
import { isEventStream } from './call';
import { bodyOf, type RequestContext } from './context';
import { translatedFor } from './translate';

const TRANSLATE_BODY_LIMIT = 64 * 1024 * 1024;

/** One upstream answer in another format, and what relaying it either way needs. */
export class TranslatedAnswer {
  /** The client's format, the one the answer is converted to. */
  readonly client: WireFormat;
  readonly isSse: boolean;
  /** The head for the client, its content type still to be set. */
  readonly headers: OutgoingHttpHeaders;
  readonly writerOpts: WriterOptions;

  constructor(
    readonly ctx: RequestContext,
    readonly res: ServerResponse,
    readonly upstream: UpstreamResponse,
    readonly signal: CancelState,
    readonly candidate: Candidate,
    /** The upstream's format, the one the answer is converted from. */
    readonly wire: WireFormat,
  ) {
    const client = ctx.endpoint.format;
    this.client = client;
    this.isSse = isEventStream(upstream);
    const headers = clientResponseHeaders(upstream.headers);
    delete headers['content-type'];
    this.headers = headers;
    const customTools = translatedFor(ctx, candidate)?.customTools;
    const echo = requestEcho(client, bodyOf(ctx));
    this.writerOpts = {
      nowMs: ctx.now(),
      now: ctx.now,
      includeUsage:
        (bodyOf(ctx).stream_options as { include_usage?: unknown } | undefined)?.include_usage ===
        true,
      ...(customTools ? { customTools } : {}),
      ...(echo ? { echo } : {}),
    };
    ctx.status = upstream.statusCode;
  }

  /** The whole upstream body as a JSON object, or null when it is not one. */
  async readWhole(): Promise<Record<string, unknown> | null> {
    const { ctx } = this;
    const raw = await readBounded(this.upstream.body, TRANSLATE_BODY_LIMIT);
    if (ctx.ttfb === null) ctx.ttfb = ctx.now() - ctx.started;
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      return isJsonObject(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }

  invalidAnswer(): GatewayError {
    return {
      status: 502,
      kind: 'upstream',
      code: 'upstream_invalid_response',
      message: `${this.candidate.target.label} answered with a body that is not a ${this.wire} response`,
    };
  }

  /** The answer's token counts, as the request records them. */
  keepUsage(usage: IrUsage): void {
    this.ctx.usage = {
      inputTokens: usage.input,
      outputTokens: usage.output,
      cachedTokens: usage.cached,
      cacheWriteTokens: usage.cacheCreation,
      reasoningTokens: usage.reasoning,
    };
  }
}
