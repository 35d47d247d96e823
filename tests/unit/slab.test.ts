import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Slab } from '../../src/main/engine/wire/slab';

describe('buffers carved from shared slabs', () => {
  it('never overlap, whatever sizes are asked for, and each has the size asked for', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 80 }), (sizes) => {
        const slab = new Slab(8 * 1024);
        const taken = sizes.map((size, i) => {
          const b = slab.take(size);
          expect(b.length).toBe(size);
          b.fill(i & 0xff);
          return b;
        });
        taken.forEach((b, i) => {
          expect(b.every((byte) => byte === (i & 0xff))).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('starts every buffer on an eight-byte boundary of its memory', () => {
    const slab = new Slab(4096);
    for (const size of [1, 3, 9, 17, 100, 5]) expect(slab.take(size).byteOffset % 8).toBe(0);
  });

  it('shares one slab between small buffers, and gives a large one memory of its own', () => {
    const slab = new Slab(4096);
    const a = slab.take(1000);
    const b = slab.take(1000);
    expect(b.buffer).toBe(a.buffer);
    expect(a.buffer.byteLength).toBe(4096);
    // Over a quarter of the slab: a slab it pinned would mostly be waste.
    const large = slab.take(1025);
    expect(large.buffer).not.toBe(a.buffer);
    expect(large.buffer.byteLength).toBe(1025);
  });

  it('starts a new slab when the current one has no room left', () => {
    const slab = new Slab(4096);
    const first = [1, 2, 3, 4].map(() => slab.take(1024));
    expect(new Set(first.map((b) => b.buffer)).size).toBe(1);
    const next = slab.take(1);
    expect(next.buffer).not.toBe(first[0]!.buffer);
  });
});
