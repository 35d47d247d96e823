import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesIn,
  type PooledBody,
  pooledBody,
  releaseBody,
  sentFromChunks,
} from '../../src/main/engine/proxy/pipeline/body-block';
import type { RequestContext } from '../../src/main/engine/proxy/pipeline/context';
import { BodyPieces, type OutgoingBody } from '../../src/main/engine/wire/body-pieces';

const KB = 1024;

/** A body of `size` random-looking bytes cut into chunks at `cuts` (fractions of the size). */
function chunksOf(size: number, cuts: number[], seed: number): Buffer[] {
  const whole = Buffer.alloc(size);
  for (let i = 0; i < size; i++) whole[i] = (i * 31 + seed) & 0xff;
  const at = [...new Set(cuts.map((c) => Math.floor(c * size)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  // Copies into memory of their own, as the socket's chunks are (not Node's shared pool).
  for (const to of [...at, size]) {
    const chunk = Buffer.allocUnsafeSlow(to - from);
    whole.copy(chunk, 0, from, to);
    out.push(chunk);
    from = to;
  }
  return out;
}

function bytesOfBody(body: OutgoingBody): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.concat([...body]);
}

function piecesOf(body: OutgoingBody): Buffer[] {
  return Buffer.isBuffer(body) ? [body] : [...body];
}

/** The fields of a request context that `releaseBody` reads and clears. */
function contextWith(pooled: PooledBody, raw: Buffer): RequestContext {
  return {
    pooled,
    raw,
    modelSpan: { of: raw, start: 0, end: 1 },
  } as unknown as RequestContext;
}

const chunked = fc.record({
  size: fc.integer({ min: 16 * KB, max: 256 * KB }),
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
  seed: fc.integer({ min: 0, max: 255 }),
});

describe('a request body joined into a pooled block', () => {
  it('is the chunks’ bytes, whatever the cuts', () => {
    fc.assert(
      fc.property(chunked, ({ size, cuts, seed }) => {
        const chunks = chunksOf(size, cuts, seed);
        const pooled = pooledBody(chunks, size)!;
        expect(pooled).not.toBeNull();
        expect(bytesIn(pooled, size).equals(Buffer.concat(chunks))).toBe(true);
        releaseBody(contextWith(pooled, bytesIn(pooled, size)));
      }),
      { numRuns: 100 },
    );
  });

  it('is not pooled below 16 KB or above 256 KB', () => {
    expect(pooledBody([Buffer.alloc(8 * KB), Buffer.alloc(8 * KB - 1)], 16 * KB - 1)).toBeNull();
    expect(
      pooledBody([Buffer.alloc(200 * KB), Buffer.alloc(56 * KB + 1)], 256 * KB + 1),
    ).toBeNull();
  });

  it('goes to the socket as the chunks’ bytes: the same bytes, no view of the block', () => {
    fc.assert(
      fc.property(
        chunked,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 4 }),
        fc.boolean(),
        ({ size, cuts, seed }, edits, inserted, whole) => {
          const chunks = chunksOf(size, cuts, seed);
          const pooled = pooledBody(chunks, size)!;
          const raw = bytesIn(pooled, size);
          // The body as a stage builds it: views of the block, with new bytes between them.
          const at = [...new Set(edits.map((e) => Math.floor(e * size)))].sort((a, b) => a - b);
          const parts: Buffer[] = [];
          let from = 0;
          at.forEach((to, i) => {
            parts.push(raw.subarray(from, to));
            const extra = inserted[i];
            if (extra) parts.push(Buffer.from(extra));
            from = to;
          });
          parts.push(raw.subarray(from));
          const built: OutgoingBody = whole ? raw : BodyPieces.of(parts);
          const expected = whole ? Buffer.from(raw) : Buffer.concat(parts);
          const sent = sentFromChunks(built, pooled);
          expect(sent.length).toBe(built.length);
          expect(bytesOfBody(sent).equals(expected)).toBe(true);
          for (const piece of piecesOf(sent)) {
            expect(piece.buffer).not.toBe(pooled.block.buffer);
          }
          releaseBody(contextWith(pooled, raw));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves a body made of none of its bytes as it is', () => {
    const chunks = chunksOf(40 * KB, [0.5], 7);
    const pooled = pooledBody(chunks, 40 * KB)!;
    const own = Buffer.from(JSON.stringify({ model: 'x', messages: [] }));
    expect(sentFromChunks(own, pooled)).toBe(own);
    const pieces = BodyPieces.of([Buffer.alloc(70 * KB, 1), Buffer.alloc(10, 2)]);
    expect(sentFromChunks(pieces, pooled)).toBe(pieces);
    releaseBody(contextWith(pooled, bytesIn(pooled, 40 * KB)));
  });

  it('goes back once the request is over, with nothing on the request showing it', () => {
    const chunks = chunksOf(100 * KB, [0.3, 0.6], 1);
    const pooled = pooledBody(chunks, 100 * KB)!;
    const ctx = contextWith(pooled, bytesIn(pooled, 100 * KB));
    releaseBody(ctx);
    expect(ctx.pooled).toBeNull();
    expect(ctx.raw.length).toBe(0);
    expect(ctx.modelSpan).toBeNull();
    // Released twice, it went back once: the next two bodies of its class get two blocks.
    releaseBody(ctx);
    const next = pooledBody(chunksOf(90 * KB, [0.5], 2), 90 * KB)!;
    const other = pooledBody(chunksOf(90 * KB, [0.5], 3), 90 * KB)!;
    expect(next.block).toBe(pooled.block);
    expect(other.block).not.toBe(pooled.block);
    // The next body's bytes are its own, though the block held a larger one before.
    expect(bytesIn(next, 90 * KB).equals(Buffer.concat(chunksOf(90 * KB, [0.5], 2)))).toBe(true);
    releaseBody(contextWith(next, bytesIn(next, 90 * KB)));
    releaseBody(contextWith(other, bytesIn(other, 90 * KB)));
  });
});
