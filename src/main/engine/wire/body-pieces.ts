/**
 * A request body sent as the pieces it is made of rather than joined into one copy: an agent's
 * turn (50-200 KB) edited in one place (its model, a member put in front) is the client's bytes
 * around a few small new ones. Joined, every attempt made a buffer of the body's size, and V8
 * counts the memory of such buffers towards starting a full collection: on the 126 KB request of
 * `npm run bench:cpu`, most of its full collections were started that way (see
 * docs/performance.md). The upstream call writes the pieces one after the other (undici takes
 * any iterable body), at the cost of a second write for the socket.
 */
export class BodyPieces implements Iterable<Buffer> {
  readonly length: number;

  private constructor(private readonly pieces: readonly Buffer[]) {
    let n = 0;
    for (const p of pieces) n += p.length;
    this.length = n;
  }

  /**
   * `parts` in order. Small neighbours are joined (a copy of a few bytes costs less than a write
   * of their own); a part of `SMALL_PART` or more stays a view of the bytes it came from.
   */
  static of(parts: readonly Buffer[]): BodyPieces {
    const pieces: Buffer[] = [];
    let run: Buffer[] = [];
    const flush = () => {
      if (run.length > 0) pieces.push(run.length === 1 ? run[0]! : Buffer.concat(run));
      run = [];
    };
    for (const part of parts) {
      if (part.length === 0) continue;
      if (part.length < SMALL_PART) {
        run.push(part);
        continue;
      }
      flush();
      pieces.push(part);
    }
    flush();
    return new BodyPieces(pieces);
  }

  [Symbol.iterator](): Iterator<Buffer> {
    return this.pieces[Symbol.iterator]();
  }

  /** The body as one buffer, for what reads it whole (a repair's parse, a capture). */
  toBuffer(): Buffer {
    return this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.length);
  }
}

/** Parts under this size are joined with their small neighbours (Node's pool serves them). */
const SMALL_PART = 4 * 1024;

/** A body this large is sent in pieces; a smaller one is joined (one write, a pooled copy). */
export const PIECES_FROM = 64 * 1024;

/** A request body as the upstream call takes it. */
export type OutgoingBody = Buffer | BodyPieces;

/** `parts` joined, or as pieces when they come to `PIECES_FROM` bytes or more. */
export function joinedOrPieces(parts: readonly Buffer[], total: number): OutgoingBody {
  return total >= PIECES_FROM ? BodyPieces.of(parts) : Buffer.concat(parts);
}

/** The body's bytes in one buffer. */
export function bytesOf(body: OutgoingBody): Buffer {
  return Buffer.isBuffer(body) ? body : body.toBuffer();
}
