import type { WireFormat } from '../../translate';
import { BlockPool } from '../../wire/block-pool';
import { bytesAt } from '../../wire/json-members';

const LF2 = Buffer.from('\n\n');
const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Bytes that mark an error event, and a piece of them of at most six bytes that is searched
 * for. Node searches a needle of seven bytes or more with Boyer-Moore-Horspool, which over an
 * SSE stream's JSON ran four times slower than a short needle's first-byte search.
 */
interface Marker {
  readonly bytes: Buffer;
  readonly probe: Buffer;
  /** Where the probe starts in `bytes`. */
  readonly probeAt: number;
}

function marker(text: string, probe: string): Marker {
  return { bytes: Buffer.from(text), probe: Buffer.from(probe), probeAt: text.indexOf(probe) };
}

/** The error events inside a 200 stream, per format (checked on whole events). */
const ERROR_MARKERS: Record<WireFormat, Marker[]> = {
  anthropic: [marker('"type":"error"', 'rror"')],
  'openai-chat': [marker('data: {"error"', '{"err')],
  'openai-responses': [
    marker('"type":"error"', 'rror"'),
    marker('"type":"response.failed"', '.fail'),
  ],
  gemini: [marker('data: {"error"', '{"err')],
};

/** Bytes one of which a stream's last events carry when it ended with its stop reason. */
const END_MARKERS: Record<WireFormat, Buffer[]> = {
  anthropic: [Buffer.from('message_stop')],
  'openai-chat': [Buffer.from('[DONE]'), Buffer.from('"finish_reason":"')],
  'openai-responses': [Buffer.from('response.completed'), Buffer.from('response.incomplete')],
  gemini: [Buffer.from('finishReason')],
};

/** A stream carried an error event: relayed up to it, then handled as a break. */
export class StreamErrorEventError extends Error {
  constructor(
    /** The stream just ended, without its stop reason, rather than with an error event. */
    readonly early = false,
  ) {
    super(
      early
        ? 'the stream ended before its stop reason'
        : 'the upstream reported an error inside its stream',
    );
  }
}

/** The first block a stream's log copies into; each next one is twice the size, up to the last. */
const FIRST_BLOCK = 4 * 1024;
const LAST_BLOCK = 256 * 1024;
/**
 * Where blocks come from, and go back to once a stream is over: at c=64, 64 streams of 32 KB
 * blocks each hold 2 MB, so 8 MB is room for bursts and long streams without allocating.
 */
const BLOCKS = new BlockPool(FIRST_BLOCK, LAST_BLOCK, 8 * 1024 * 1024);

/**
 * What a stream has carried, kept while continuation may need it (issue 28): the bytes as they
 * went out. For a passthrough stream it also lets only whole events out, so a cut never leaves
 * half an event at the client, and stops at an error event.
 *
 * The bytes are copied into a few blocks of its own rather than kept as the chunks they came in:
 * those are views of the upstream socket's read buffers, a hundred or more per stream, and
 * holding them for as long as the stream ran made every scavenge copy them and their buffers
 * along (at c=64, twice the collector's time per request). A copy is a memcpy. The blocks go
 * back to a pool when the stream is over, unless a continuation took them (`take`).
 */
export class SeamLog {
  private full: Buffer[] = [];
  /** Every block taken from the pool, the current one last. */
  private blocks: Buffer[] = [];
  /** A continuation took the bytes: the blocks are its now, and do not go back to the pool. */
  private taken = false;
  private block: Buffer | null = null;
  private used = 0;
  private carry: Buffer | null = null;
  /** Where the last two chunks kept are (each is copied whole into one block), for `endedCleanly`. */
  private last: Buffer | null = null;
  private lastStart = 0;
  private lastEnd = 0;
  private previous: Buffer | null = null;
  private previousStart = 0;
  private previousEnd = 0;
  /** The stream carried an error event; nothing from it on goes out. */
  errored = false;

  constructor(private readonly format: WireFormat) {}

  /**
   * What the stream carried so far, in order (a few blocks, not its chunks): views of the log's
   * blocks, for a look before `release` (after it, the blocks may hold another stream's bytes).
   */
  get chunks(): Buffer[] {
    const block = this.block;
    return block && this.used > 0 ? [...this.full, block.subarray(0, this.used)] : [...this.full];
  }

  /** A chunk as it went on (a translated stream's: the upstream's, as the translator read it). */
  keep(chunk: Uint8Array): void {
    let block = this.block;
    if (block === null || block.length - this.used < chunk.length) {
      if (block !== null && this.used > 0) this.full.push(block.subarray(0, this.used));
      const next = block === null ? FIRST_BLOCK : Math.min(LAST_BLOCK, block.length * 2);
      block = BLOCKS.take(Math.max(next, chunk.length));
      this.blocks.push(block);
      this.block = block;
      this.used = 0;
    }
    block.set(chunk, this.used);
    this.previous = this.last;
    this.previousStart = this.lastStart;
    this.previousEnd = this.lastEnd;
    this.last = block;
    this.lastStart = this.used;
    this.used += chunk.length;
    this.lastEnd = this.used;
  }

  /** A passthrough chunk in; the whole events that may go out now (often all of it). */
  whole(buf: Buffer): Buffer {
    if (this.errored) return buf.subarray(0, 0);
    const all = this.carry ? Buffer.concat([this.carry, buf]) : buf;
    const end = eventsEnd(all);
    this.carry = end < all.length ? Buffer.from(all.subarray(end)) : null;
    let out = end === all.length ? all : all.subarray(0, end);
    const at = errorAt(out, ERROR_MARKERS[this.format]);
    if (at !== -1) {
      this.errored = true;
      this.carry = null;
      out = out.subarray(0, at);
    }
    if (out.length > 0) this.keep(out);
    return out;
  }

  /** What the stream carried, for a continuation to keep: `release` leaves these blocks to it. */
  take(): Buffer[] {
    this.taken = true;
    return this.chunks;
  }

  /** Lets the bytes go once the stream is over: back to the pool, unless a continuation took them. */
  release(): void {
    if (!this.taken) for (const block of this.blocks) BLOCKS.give(block);
    this.blocks = [];
    this.full = [];
    this.block = null;
    this.used = 0;
    this.carry = null;
    this.last = null;
    this.previous = null;
  }

  /** What is left of an event the stream ended inside. */
  rest(): Buffer | null {
    const rest = this.carry;
    this.carry = null;
    return rest;
  }

  /** Whether the stream's last two chunks hold its stop (a quick look; a miss is read in full). */
  endedCleanly(): boolean {
    return (
      holdsEnd(this.last, this.lastStart, this.lastEnd, END_MARKERS[this.format]) ||
      holdsEnd(this.previous, this.previousStart, this.previousEnd, END_MARKERS[this.format])
    );
  }
}

function holdsEnd(block: Buffer | null, start: number, end: number, markers: Buffer[]): boolean {
  if (block === null) return false;
  const chunk = block.subarray(start, end);
  // From the end: the markers are in the last events, so the search stops near them.
  for (const m of markers) if (chunk.lastIndexOf(m) !== -1) return true;
  return false;
}

/** The end of the last complete event in `buf` (0 when none is complete yet). */
function eventsEnd(buf: Buffer): number {
  // Nearly every chunk ends an event (`\n\n`, `\r\n\r\n` ends in it too): no search then.
  const n = buf.length;
  if (n >= 2 && buf[n - 1] === 0x0a && buf[n - 2] === 0x0a) return n;
  if (n >= 4 && buf[n - 1] === 0x0a && buf[n - 2] === 0x0d && buf[n - 3] === 0x0a) {
    if (buf[n - 4] === 0x0d) return n;
  }
  const lf = buf.lastIndexOf(LF2);
  const crlf = buf.lastIndexOf(CRLF2);
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4);
}

/** Where the event holding an error marker starts, or -1. */
function errorAt(buf: Buffer, markers: readonly Marker[]): number {
  let at = -1;
  for (const m of markers) {
    const i = markerAt(buf, m);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  if (at === -1) return -1;
  const lf = buf.lastIndexOf(LF2, at);
  const crlf = buf.lastIndexOf(CRLF2, at);
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4);
}

/** The first whole `m` in `buf`, or -1. */
function markerAt(buf: Buffer, m: Marker): number {
  const { bytes, probe, probeAt } = m;
  for (let i = buf.indexOf(probe, probeAt); i !== -1; i = buf.indexOf(probe, i + 1)) {
    if (bytesAt(buf, i - probeAt, buf.length, bytes)) return i - probeAt;
  }
  return -1;
}
