import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockPool } from '../../src/main/engine/wire/block-pool';

const KB = 1024;

describe('a pool of blocks handed out again once given back', () => {
  it('hands out a block of its size class, at least the size asked for, never shared', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ size: fc.integer({ min: 0, max: 80 * KB }), back: fc.boolean() }), {
          maxLength: 60,
        }),
        (asks) => {
          const pool = new BlockPool(4 * KB, 64 * KB, 256 * KB);
          const held: { block: Buffer; mark: number }[] = [];
          asks.forEach(({ size, back }, i) => {
            const block = pool.take(size);
            expect(block.length).toBeGreaterThanOrEqual(size);
            if (size <= 64 * KB) {
              expect([4, 8, 16, 32, 64].map((k) => k * KB)).toContain(block.length);
              expect(block.length < 2 * size || block.length === 4 * KB).toBe(true);
            } else expect(block.length).toBe(size);
            block.fill(i & 0xff);
            if (back) pool.give(block);
            else held.push({ block, mark: i & 0xff });
          });
          // A block still held was never handed to anyone else: its bytes are all its own.
          for (const { block, mark } of held) expect(block.every((b) => b === mark)).toBe(true);
          expect(pool.pooled).toBeLessThanOrEqual(256 * KB);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hands a block given back out again, to the next ask of its class', () => {
    const pool = new BlockPool(4 * KB, 64 * KB, 256 * KB);
    const first = pool.take(10 * KB);
    expect(first.length).toBe(16 * KB);
    pool.give(first);
    expect(pool.pooled).toBe(16 * KB);
    expect(pool.take(4 * KB + 1)).not.toBe(first);
    expect(pool.take(9 * KB)).toBe(first);
    expect(pool.pooled).toBe(0);
  });

  it('keeps at most its limit waiting, and lets the rest go', () => {
    const pool = new BlockPool(4 * KB, 64 * KB, 100 * KB);
    const blocks = Array.from({ length: 5 }, () => pool.take(32 * KB));
    for (const b of blocks) pool.give(b);
    expect(pool.pooled).toBe(96 * KB);
    expect(new Set([pool.take(32 * KB), pool.take(32 * KB), pool.take(32 * KB)]).size).toBe(3);
    expect(blocks).not.toContain(pool.take(32 * KB));
  });

  it('never pools what it did not hand out whole: views, odd sizes, oversize, empty', () => {
    const pool = new BlockPool(4 * KB, 64 * KB, 1024 * KB);
    const big = Buffer.allocUnsafeSlow(64 * KB);
    const foreign = [
      big.subarray(0, 8 * KB),
      big.subarray(8 * KB, 16 * KB),
      Buffer.alloc(5 * KB),
      Buffer.alloc(0),
      Buffer.alloc(1),
      pool.take(128 * KB),
      // Node's shared pool: a 4 KB view of a larger slab would hand that slab's other bytes out.
      Buffer.from('x'.repeat(100)),
    ];
    for (const b of foreign) pool.give(b);
    expect(pool.pooled).toBe(0);
  });

  it('takes a block given back twice once: two asks after it get two blocks', () => {
    const pool = new BlockPool(4 * KB, 64 * KB, 256 * KB);
    const block = pool.take(20 * KB);
    pool.give(block);
    pool.give(block);
    expect(pool.pooled).toBe(32 * KB);
    const first = pool.take(20 * KB);
    const second = pool.take(20 * KB);
    expect(first).toBe(block);
    expect(second).not.toBe(block);
    // Handed out again, it may come back again.
    pool.give(first);
    expect(pool.take(20 * KB)).toBe(block);
  });
});
