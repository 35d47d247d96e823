import type { WireFormat } from '../../translate';
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

/**
 * What a stream has carried, kept while continuation may need it (issue 28): the chunks as
 * they went out (by reference). For a passthrough stream it also lets only whole events out, so
 * a cut never leaves half an event at the client, and stops at an error event.
 */
export class SeamLog {
  chunks: Buffer[] = [];
  private carry: Buffer | null = null;
  /** The stream carried an error event; nothing from it on goes out. */
  errored = false;

  constructor(private readonly format: WireFormat) {}

  /** A translated stream's upstream chunk, as the translator read it. */
  keep(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  /** A passthrough chunk in; the whole events that may go out now (often all of it). */
  whole(buf: Buffer): Buffer {
    if (this.errored) return buf.subarray(0, 0);
    const all = this.carry ? Buffer.concat([this.carry, buf]) : buf;
    const end = eventsEnd(all);
    this.carry = end < all.length ? all.subarray(end) : null;
    let out = end === all.length ? all : all.subarray(0, end);
    const at = errorAt(out, ERROR_MARKERS[this.format]);
    if (at !== -1) {
      this.errored = true;
      this.carry = null;
      out = out.subarray(0, at);
    }
    if (out.length > 0) this.chunks.push(out);
    return out;
  }

  /**
   * Lets the chunks go once the stream is over (a continuation that took them keeps its own
   * reference). Left on the log, they were views of the upstream socket's read buffers that a
   * finished relay kept past the next scavenges: external memory that only a full collection
   * freed, and enough of it that V8 ran one after nearly every scavenge.
   */
  release(): void {
    this.chunks = [];
    this.carry = null;
  }

  /** What is left of an event the stream ended inside. */
  rest(): Buffer | null {
    const rest = this.carry;
    this.carry = null;
    return rest;
  }

  /** Whether the stream's last events hold its stop (a quick look; a miss is read in full). */
  endedCleanly(): boolean {
    const markers = END_MARKERS[this.format];
    const n = this.chunks.length;
    for (let i = n - 1; i >= Math.max(0, n - 2); i--) {
      // From the end: the markers are in the last events, so the search stops near them.
      const chunk = this.chunks[i]!;
      for (const m of markers) if (chunk.lastIndexOf(m) !== -1) return true;
    }
    return false;
  }
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
