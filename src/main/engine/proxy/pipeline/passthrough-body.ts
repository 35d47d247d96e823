import { RecentValues } from '../../bounded-map';
import { joinedOrPieces, type OutgoingBody } from '../../wire/body-pieces';
import { skipWs } from '../../wire/json-members';
import { topLevelModelSpan } from '../../wire/model-rewrite';
import { bodyOf, type RequestContext } from './context';

/**
 * A model name as JSON bytes, made once per name: a combo's every request puts the same few
 * names in. A copy of their own, so that no entry holds on to a slab of Buffer's shared pool.
 */
const QUOTED_MODELS = new RecentValues(64, (model: string) => {
  const json = JSON.stringify(model);
  const own = Buffer.allocUnsafeSlow(Buffer.byteLength(json, 'utf8'));
  own.write(json, 'utf8');
  return own;
});

/** No member added in front. */
export const NO_MEMBERS: readonly Buffer[] = [];

/**
 * The bytes a passed-through request is sent as: the client's, untouched unless the upstream
 * knows the model by another name (combos, `provider/model`) or the gateway adds members in
 * front (`front`, each `"key":value,`: the session's `prompt_cache_key`, `stream_options` asking
 * for usage). All of that is put together in one copy of the body, however many apply; a body
 * of an agent's turn is 50-200 KB and each extra copy was a buffer of that size per attempt.
 * The model's bytes change only where the byte-level edit is shown safe (see model-rewrite.ts);
 * otherwise the body is serialised again.
 */
export function passthroughBody(
  ctx: RequestContext,
  model: string,
  front: readonly Buffer[],
): Buffer {
  return joined(passthroughParts(ctx, model, front));
}

/**
 * What `passthroughBody` joins, as the upstream call sends it: a large body goes as the client's
 * bytes around the new ones, with no copy at all (body-pieces.ts).
 */
export function outgoingPassthrough(
  ctx: RequestContext,
  model: string,
  front: readonly Buffer[],
): OutgoingBody {
  const parts = passthroughParts(ctx, model, front);
  return Buffer.isBuffer(parts) ? parts : joinedOrPieces(parts, ctx.raw.length);
}

/** The body in the parts it is made of, or a buffer that is sent as it is (no array made). */
function passthroughParts(
  ctx: RequestContext,
  model: string,
  front: readonly Buffer[],
): Buffer | Buffer[] {
  const raw = ctx.raw;
  if (model === ctx.model) return memberParts(raw, front);
  const known = ctx.modelSpan;
  const span = known !== null && known.of === raw ? known : topLevelModelSpan(raw, true);
  if (span === null)
    return memberParts(Buffer.from(JSON.stringify({ ...bodyOf(ctx), model })), front);
  const open = skipWs(raw, 0) + 1;
  return [
    raw.subarray(0, open),
    ...front,
    raw.subarray(open, span.start),
    QUOTED_MODELS.get(model),
    raw.subarray(span.end),
  ];
}

/**
 * `body` (a JSON object, as parse.ts checked) with `front` as its first members; `body` itself
 * when there are none. Safe as a byte-level edit because a member follows the `{`: the body
 * holds its model.
 */
export function withMembers(body: Buffer, front: readonly Buffer[]): Buffer {
  return joined(memberParts(body, front));
}

function memberParts(body: Buffer, front: readonly Buffer[]): Buffer | Buffer[] {
  if (front.length === 0) return body;
  const open = skipWs(body, 0) + 1;
  return [body.subarray(0, open), ...front, body.subarray(open)];
}

function joined(parts: Buffer | Buffer[]): Buffer {
  return Buffer.isBuffer(parts) ? parts : Buffer.concat(parts);
}
