import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Catalog } from '../../config/catalog';
import type { Candidate } from '../../routing/resolve';
import { parseError } from '../../translate';
import { clientResponseHeaders, scrubSecrets } from '../../upstream/headers';
import { clientErrorFromUpstream } from '../../upstream/upstream-errors';
import {
  type ErrorKind,
  errorBody,
  type GatewayError,
  kindForStatus,
  sendError,
  streamErrorEvent,
} from '../../wire/client-errors';
import { headerValue } from '../../wire/header-value';
import type { HeldError } from './attempt';
import type { RequestContext } from './context';
import { translatedFor } from './translate';

/** Answers with a gateway error in the client's format, with the steps taken so far. */
export function fail(ctx: RequestContext, res: ServerResponse, err: GatewayError): void {
  ctx.status = err.status;
  ctx.errorClass ??= err.code;
  ctx.errorMessage ??= err.message;
  if (ctx.clientGone) return;
  if (ctx.heldOpen) {
    res.end(streamErrorEvent(ctx.endpoint.format, err));
    return;
  }
  const decision: Record<string, string> =
    ctx.steps.length > 0 ? { 'x-breakwater-decision': headerValue(ctx.steps.join('; ')) } : {};
  sendError(res, ctx.endpoint.format, { ...err, headers: { ...err.headers, ...decision } });
}

/**
 * Finishes the head of a relayed answer in `out` (built once per answer, never copied): the
 * provider headers it carries are scrubbed of every configured secret, and the routing
 * decision headers are added.
 */
export function addDecisionHeaders(
  out: OutgoingHttpHeaders,
  ctx: RequestContext,
  candidate: Candidate,
): OutgoingHttpHeaders {
  scrubSecrets(out, ctx.catalog.secrets());
  out['x-breakwater-decision'] = headerValue(ctx.steps.join('; '));
  out['x-breakwater-connection'] = headerValue(candidate.connection.id);
  if (ctx.warnings) out['x-breakwater-warning'] = headerValue(ctx.warnings.join('; '));
  const translated = translatedFor(ctx, candidate);
  if (translated) {
    out['x-breakwater-translated'] = `${ctx.endpoint.format} -> ${translated.wire}`;
    if (translated.dropped) out['x-breakwater-dropped'] = headerValue(translated.dropped);
  }
  return out;
}

/**
 * Answers with an upstream error in the client's format, with the status as restated by the
 * error rules (e.g. a quota 403 becomes a 429 with Retry-After).
 */
export function relayError(
  ctx: RequestContext,
  res: ServerResponse,
  held: HeldError,
  catalog: Catalog,
  /** The real earliest reset, when every obstacle ends by itself (issue 29). */
  retryAfterMs: number | null = null,
): void {
  const { candidate, cls, raw } = held;
  const status = cls.status;
  const relayed = clientErrorFromUpstream(
    ctx.endpoint.format,
    status,
    raw,
    candidate.target.provider.id,
    catalog.secrets(),
  );
  const { message } = relayed;
  const body = translatedError(ctx, candidate, status, raw, message) ?? relayed.body;
  ctx.served = candidate;
  ctx.status = status;
  ctx.errorClass = cls.reason;
  ctx.errorMessage = message;
  if (ctx.clientGone) return;
  if (ctx.heldOpen) {
    res.end(
      streamErrorEvent(ctx.endpoint.format, {
        status,
        kind: kindForStatus(status),
        code: cls.reason,
        message,
      }),
    );
    return;
  }
  const headers = clientResponseHeaders(held.headers);
  if (retryAfterMs !== null)
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  else if (cls.clientRetryAfterMs !== null && headers['retry-after'] === undefined) {
    headers['retry-after'] = String(Math.ceil(cls.clientRetryAfterMs / 1000));
  }
  addDecisionHeaders(headers, ctx, candidate);
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
  ctx.bytesOut = Buffer.byteLength(body);
}

/** An upstream error in another format, rewritten in the client's; null to use the default. */
function translatedError(
  ctx: RequestContext,
  candidate: Candidate,
  status: number,
  raw: Buffer,
  redactedMessage: string,
): string | null {
  const translated = translatedFor(ctx, candidate);
  if (!translated) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  const err = parseError(translated.wire, status, parsed);
  if (!err) return null;
  return JSON.stringify(
    errorBody(ctx.endpoint.format, {
      status,
      kind: err.kind as ErrorKind,
      code: err.code,
      message: redactedMessage,
    }),
  );
}
