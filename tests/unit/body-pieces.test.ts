import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/main/engine/proxy/pipeline/context';
import {
  NO_MEMBERS,
  outgoingPassthrough,
  passthroughBody,
} from '../../src/main/engine/proxy/pipeline/passthrough-body';
import { cacheKeyMember } from '../../src/main/engine/proxy/pipeline/prompt-cache';
import { USAGE_ASKED } from '../../src/main/engine/proxy/pipeline/stream-usage';
import {
  BodyPieces,
  bytesOf,
  joinedOrPieces,
  PIECES_FROM,
} from '../../src/main/engine/wire/body-pieces';

const SMALL = 4 * 1024;

/** A part of random bytes, small or large, from memory of its own or a view into a larger one. */
const part = fc
  .tuple(fc.oneof(fc.nat(SMALL + 100), fc.integer({ min: SMALL, max: 3 * SMALL })), fc.nat(50))
  .map(([size, offset]) => {
    const whole = Buffer.alloc(size + offset + 7);
    for (let i = 0; i < whole.length; i++) whole[i] = (i * 31 + size) & 0xff;
    return whole.subarray(offset, offset + size);
  });

describe('a body sent as pieces', () => {
  it('carries exactly the bytes of its parts, in order, whatever their sizes', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const body = BodyPieces.of(parts);
        const joined = Buffer.concat(parts);
        expect(Buffer.concat([...body]).equals(joined)).toBe(true);
        expect(body.length).toBe(joined.length);
        expect(body.toBuffer().equals(joined)).toBe(true);
        expect(bytesOf(body).equals(joined)).toBe(true);
      }),
    );
  });

  it('joins small neighbours, keeps large parts as views of their bytes, and has no empty piece', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const pieces = [...BodyPieces.of(parts)];
        for (const p of pieces) expect(p.length).toBeGreaterThan(0);
        for (let i = 1; i < pieces.length; i++)
          expect(pieces[i - 1]!.length >= SMALL || pieces[i]!.length >= SMALL).toBe(true);
        // Every large part is sent from the memory it came in: no copy of it was made.
        for (const large of parts.filter((p) => p.length >= SMALL))
          expect(
            pieces.some((p) => p.buffer === large.buffer && p.byteOffset === large.byteOffset),
          ).toBe(true);
      }),
    );
  });

  it('can be sent again: a failover or a lane retry iterates it from the start', () => {
    const body = BodyPieces.of([Buffer.alloc(SMALL, 1), Buffer.from('x'), Buffer.alloc(SMALL, 2)]);
    expect(Buffer.concat([...body]).equals(Buffer.concat([...body]))).toBe(true);
    expect([...body]).toHaveLength(3);
  });

  it('is one buffer below the size it pays from, pieces from it on', () => {
    const small = [Buffer.alloc(10), Buffer.alloc(PIECES_FROM - 11)];
    expect(Buffer.isBuffer(joinedOrPieces(small, PIECES_FROM - 1))).toBe(true);
    const large = [Buffer.from('{'), Buffer.alloc(PIECES_FROM)];
    expect(joinedOrPieces(large, PIECES_FROM + 1)).toBeInstanceOf(BodyPieces);
    // An empty body has no piece at all.
    expect([...BodyPieces.of([Buffer.alloc(0)])]).toEqual([]);
  });
});

function ctxOf(raw: Buffer, model: string): RequestContext {
  return { raw, model, parsed: null, modelSpan: null } as unknown as RequestContext;
}

describe('a passed-through body as the upstream call sends it', () => {
  it('is what passthroughBody joins, for small and agent-sized bodies alike', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(100, 5_000, PIECES_FROM - 40, PIECES_FROM + 1, 150_000),
        fc.nat(3),
        fc.boolean(),
        fc.boolean(),
        (filler, at, keyed, asked) => {
          const members: [string, unknown][] = [
            ['messages', [{ role: 'user', content: 'é'.repeat(filler / 2) }]],
            ['stream', true],
            ['max_tokens', 10],
          ];
          members.splice(at, 0, ['model', 'coder']);
          const raw = Buffer.from(JSON.stringify(Object.fromEntries(members)));
          const front = [
            ...(keyed ? [cacheKeyMember('bw-1')] : []),
            ...(asked ? [USAGE_ASKED] : []),
          ];
          const out = outgoingPassthrough(ctxOf(raw, 'coder'), 'gpt-x', front);
          const want = passthroughBody(ctxOf(raw, 'coder'), 'gpt-x', front);
          expect(bytesOf(out).equals(want)).toBe(true);
          expect(out.length).toBe(want.length);
          expect(out instanceof BodyPieces).toBe(raw.length >= PIECES_FROM);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sends the client bytes themselves when nothing changes, at any size', () => {
    const raw = Buffer.from(JSON.stringify({ model: 'm', x: 'y'.repeat(PIECES_FROM) }));
    expect(outgoingPassthrough(ctxOf(raw, 'm'), 'm', NO_MEMBERS)).toBe(raw);
  });
});
