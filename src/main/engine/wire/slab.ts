/**
 * Hands out buffers carved from shared slabs: on Node 20 every buffer with memory of its own
 * (over 64 bytes) costs about 3 µs to allocate and free, whatever its size, against a tenth of a
 * microsecond for a view of a slab. A slab lives as long as any buffer carved from it, so only
 * sizes up to a quarter of it are carved: a long-lived one holds at most four times its own size.
 * Node's own pool (`Buffer.allocUnsafe`) does the same below 4 KB; this one serves larger sizes.
 */
export class Slab {
  private slab: Buffer | null = null;
  private used = 0;
  private readonly largest: number;

  constructor(private readonly bytes: number) {
    this.largest = bytes >>> 2;
  }

  /** A buffer of `size` bytes, not zeroed, that no other buffer from here overlaps. */
  take(size: number): Buffer {
    if (size > this.largest) return Buffer.allocUnsafeSlow(size);
    let slab = this.slab;
    if (slab === null || slab.length - this.used < size) {
      slab = Buffer.allocUnsafeSlow(this.bytes);
      this.slab = slab;
      this.used = 0;
    }
    const start = this.used;
    // Eight-byte steps keep every buffer aligned for a typed-array view of it.
    this.used = (start + size + 7) & ~7;
    return slab.subarray(start, start + size);
  }
}
