/**
 * Buffers in a few sizes (powers of two from `smallest` to `largest`) that their holder gives
 * back when done with them, to be handed out again. A buffer with memory of its own is memory
 * outside V8's heap, and V8 weighs what is allocated there in deciding when to collect: a stream
 * gateway that allocates a block per stream and lets the collector free it starts full
 * collections over and over at some loads (docs/performance.md), where blocks that come back
 * are allocated once. At most `limit` bytes wait here; past that a block given back is let go.
 */
export class BlockPool {
  private readonly free: Buffer[][];
  /** The blocks in `free`: one given back twice would be handed to two holders. */
  private readonly pooledBlocks = new Set<Buffer>();
  private waiting = 0;

  constructor(
    private readonly smallest: number,
    private readonly largest: number,
    private readonly limit: number,
  ) {
    this.free = Array.from({ length: this.classOf(largest) + 1 }, () => []);
  }

  /**
   * A buffer of at least `size` bytes (its size class's), not zeroed, that nobody else holds.
   * Sizes over `largest` get a buffer of their own, of exactly that size, never pooled.
   */
  take(size: number): Buffer {
    if (size > this.largest) return Buffer.allocUnsafeSlow(size);
    const c = this.classOf(size);
    const block = this.free[c]!.pop();
    if (block === undefined) return Buffer.allocUnsafeSlow(this.smallest * 2 ** c);
    this.pooledBlocks.delete(block);
    this.waiting -= block.length;
    return block;
  }

  /**
   * `block`, from `take`, is no longer read or written by anyone: it may be handed out again.
   * Anything else (a view of a larger buffer, a size that is no class) is let go as it is.
   */
  give(block: Buffer): void {
    const size = block.length;
    if (size < this.smallest || size > this.largest) return;
    const c = this.classOf(size);
    // A view of a larger buffer would hand the rest of that buffer's bytes to the next holder.
    if (this.smallest * 2 ** c !== size || block.buffer.byteLength !== size) return;
    if (this.waiting + size > this.limit || this.pooledBlocks.has(block)) return;
    this.free[c]!.push(block);
    this.pooledBlocks.add(block);
    this.waiting += size;
  }

  /** Bytes waiting to be handed out again. */
  get pooled(): number {
    return this.waiting;
  }

  /** The size class of `size`: 0 up to `smallest`, then one per doubling. */
  private classOf(size: number): number {
    return size <= this.smallest ? 0 : 32 - Math.clz32(Math.ceil(size / this.smallest) - 1);
  }
}
