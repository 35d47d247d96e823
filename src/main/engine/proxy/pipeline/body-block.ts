// A request body that arrived in several chunks is joined into a block from a pool, and the
// block goes back when the request is over. Joined into new memory each time, an agent's turn
// (50-200 KB) was an allocation outside V8's heap per request, which V8 counts towards starting
// a full collection: on the 126 KB request of `npm run bench:cpu` that doubled the full
// collections and cost a third of the request's CPU (docs/performance.md, "The seventeenth
// round").
//
// The block is read in this process only, and only while the request runs: what is written to
// an upstream socket is a view of the chunks the body arrived in (`sentFromChunks`), never of
// the block, because a socket may still be writing a body after the request is over (an
// upstream that answers before reading it all), and a block handed to the next request by then
// would put that request's bytes on this one's connection.

import { BlockPool } from '../../wire/block-pool';
import { BodyPieces, type OutgoingBody, PIECES_FROM } from '../../wire/body-pieces';

/** A body joined into a pooled block: the block, and the chunks its bytes were copied from. */
export interface PooledBody {
  readonly block: Buffer;
  readonly chunks: readonly Buffer[];
}

/** Smaller bodies are joined into Node's own pool or a small buffer: nothing to win. */
const SMALLEST = 16 * 1024;
/** Larger bodies are rare enough that a buffer of their own each is no churn. */
const LARGEST = 256 * 1024;
/** At c=64, 64 agent turns of 128 KB blocks each: 8 MB keeps them all without allocating. */
const BODY_BLOCKS = new BlockPool(SMALLEST, LARGEST, 8 * 1024 * 1024);

/** A body let go: what a reader finds once the bytes it held are gone. */
export const NO_BYTES = Buffer.alloc(0);

/** What of a request context or its front door shows its body (context.ts). */
interface BodyHolder {
  pooled: PooledBody | null;
  raw: Buffer | null;
  modelSpan?: unknown;
}

/** `chunks` joined into a pooled block, or null when their size is outside the pool's. */
export function pooledBody(chunks: readonly Buffer[], size: number): PooledBody | null {
  if (size < SMALLEST || size > LARGEST) return null;
  const block = BODY_BLOCKS.take(size);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(block, at);
  return { block, chunks };
}

/** The body's bytes in `pooled`'s block (the block may be larger than the body). */
export function bytesIn(pooled: PooledBody, size: number): Buffer {
  return pooled.block.subarray(0, size);
}

/**
 * The block goes back to the pool: the answer is committed (context.ts `committed`) or the
 * request is over (run.ts). Everything on the context that could still show the block's bytes
 * is let go first, so a late reader finds no bytes rather than another request's; a stream's
 * continuation keeps the chunks instead (`committed`).
 */
export function releaseBody(ctx: BodyHolder): void {
  const pooled = ctx.pooled;
  if (pooled === null) return;
  ctx.pooled = null;
  ctx.raw = NO_BYTES;
  if (ctx.modelSpan !== undefined) ctx.modelSpan = null;
  BODY_BLOCKS.give(pooled.block);
}

/**
 * `body` as it may be written to a socket: every part of it that is a view of the pooled block
 * becomes views of the chunks the same bytes arrived in (which no one reuses); the rest is
 * left as it is. The bytes and their order do not change.
 */
export function sentFromChunks(body: OutgoingBody, pooled: PooledBody): OutgoingBody {
  const block = pooled.block.buffer;
  if (Buffer.isBuffer(body)) {
    if (body.buffer !== block) return body;
    const parts = chunkViews(pooled, body);
    return body.length >= PIECES_FROM ? BodyPieces.of(parts) : Buffer.concat(parts, body.length);
  }
  const parts: Buffer[] = [];
  let touched = false;
  for (const piece of body) {
    if (piece.buffer !== block) parts.push(piece);
    else {
      touched = true;
      parts.push(...chunkViews(pooled, piece));
    }
  }
  return touched ? BodyPieces.of(parts) : body;
}

/** The chunks' bytes that `view`, a view of the block, shows. */
function chunkViews(pooled: PooledBody, view: Buffer): Buffer[] {
  const start = view.byteOffset - pooled.block.byteOffset;
  const end = start + view.length;
  const out: Buffer[] = [];
  let at = 0;
  for (const chunk of pooled.chunks) {
    const next = at + chunk.length;
    if (next > start && at < end) {
      out.push(chunk.subarray(Math.max(start - at, 0), Math.min(end, next) - at));
    }
    at = next;
    if (at >= end) break;
  }
  return out;
}
