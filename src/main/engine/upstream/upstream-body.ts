/** Where a body's bytes come from: the upstream call, paused and resumed for backpressure. */
export interface BodySource {
  pause(): void;
  resume(): void;
  abort(reason: Error): void;
}

/** A body's one reader, called as the bytes arrive (see `UpstreamBody.read`). */
export interface BodyReader {
  /** One chunk; false pauses delivery until `UpstreamBody.resume()`. */
  data(chunk: Buffer): boolean;
  end(): void;
  error(err: Error): void;
}

/**
 * Sees every chunk as it arrives, whoever reads the body and whenever (the content idle timer,
 * which must run during the first-event peek too); `settled` once the body ended, failed or was
 * destroyed.
 */
export interface BodyTap {
  chunk(chunk: Buffer): void;
  settled(): void;
}

/** Bytes held for a reader that is not reading (yet): past this, the upstream socket pauses. */
const HIGH_WATER_BYTES = 64 * 1024;

export class BodyDestroyedError extends Error {
  readonly code = 'BW_BODY_DESTROYED';
  constructor() {
    super('upstream body destroyed before it was read to the end');
  }
}

/**
 * An upstream answer's body, fed by the undici dispatch handler (`upstream.ts`) and read in one
 * of two ways: `read()` hands every chunk to a reader as it arrives, which is how the relay
 * forwards a stream with no promise, stream object or async frame per chunk; `next()` and async
 * iteration pull chunks one at a time, for the short reads (the first event, error bodies,
 * whole answers to translate). `unshift` puts peeked chunks back for the reader that follows.
 */
export class UpstreamBody {
  private chunks: Buffer[] = [];
  private bufferedBytes = 0;
  private reader: BodyReader | null = null;
  /** The reader asked for a pause (its `data` returned false). */
  private readerPaused = false;
  private sourcePaused = false;
  private ended = false;
  private failure: Error | null = null;
  /** The end or the failure has been passed on, to the reader or to `next()`. */
  private settled = false;
  private wake: (() => void) | null = null;
  private tap: BodyTap | null = null;

  constructor(private readonly source: BodySource | null = null) {}

  /** A body that has already arrived whole (an error body read ahead and replayed). */
  static of(chunks: readonly Buffer[]): UpstreamBody {
    const body = new UpstreamBody();
    for (const chunk of chunks) body.push(chunk);
    body.end();
    return body;
  }

  /** Read to the end, failed or destroyed: nothing more will come of it. */
  get destroyed(): boolean {
    return this.failure !== null || (this.settled && this.ended);
  }

  /** Sets the body's one tap (see BodyTap); a body already over settles it at once. */
  setTap(tap: BodyTap): void {
    if (this.failure || this.ended) tap.settled();
    else this.tap = tap;
  }

  /** The chunks that arrived and wait for a reader (the array itself: read, never changed). */
  waiting(): readonly Buffer[] {
    return this.chunks;
  }

  private untap(): void {
    const tap = this.tap;
    this.tap = null;
    tap?.settled();
  }

  // The producer's side.

  push(chunk: Buffer): void {
    if (this.ended || this.failure) return;
    this.tap?.chunk(chunk);
    if (this.reader && !this.readerPaused && this.chunks.length === 0) {
      this.deliver(this.reader, chunk);
      if (this.readerPaused && !this.failure) this.pauseSource();
      return;
    }
    this.chunks.push(chunk);
    this.bufferedBytes += chunk.length;
    // A paused reader has paused the source already; unread chunks pause it past the mark.
    if (this.bufferedBytes >= HIGH_WATER_BYTES) this.pauseSource();
    this.wakeUp();
  }

  end(): void {
    if (this.ended || this.failure) return;
    this.ended = true;
    this.untap();
    if (this.reader) this.flush();
    else this.wakeUp();
  }

  /** The call failed (network, timeout, abort): the reader or the next `next()` learns why. */
  fail(err: Error): void {
    if (this.failure || (this.ended && this.settled)) return;
    this.failure = err;
    this.untap();
    this.chunks = [];
    this.bufferedBytes = 0;
    const reader = this.reader;
    if (reader && !this.settled) {
      this.settled = true;
      this.reader = null;
      reader.error(err);
    }
    this.wakeUp();
  }

  // The reader's side.

  /**
   * Hands every chunk (those already here first) to `reader`, then its end or error. One reader
   * per body; errors raised by the reader destroy the body with that error.
   */
  read(reader: BodyReader): void {
    if (this.failure) {
      if (!this.settled) {
        this.settled = true;
        reader.error(this.failure);
      }
      return;
    }
    this.reader = reader;
    this.flush();
  }

  /** Delivery goes on after the reader paused it. */
  resume(): void {
    if (!this.readerPaused) return;
    this.readerPaused = false;
    this.flush();
  }

  /** The next chunk, or null at the end; rejects with the failure. */
  next(): Promise<Buffer | null> {
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.bufferedBytes -= chunk.length;
      if (this.bufferedBytes < HIGH_WATER_BYTES) this.resumeSource();
      return Promise.resolve(chunk);
    }
    if (this.failure) {
      this.settled = true;
      return Promise.reject(this.failure);
    }
    if (this.ended) {
      this.settled = true;
      return Promise.resolve(null);
    }
    this.resumeSource();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    }).then(() => this.next());
  }

  /** Puts chunks read with `next()` back in front, for whoever reads next. */
  unshift(chunks: readonly Buffer[]): void {
    if (this.failure || chunks.length === 0) return;
    for (const chunk of chunks) this.bufferedBytes += chunk.length;
    this.chunks.unshift(...chunks);
    // An end already reported by `next()` is reported again after these.
    this.settled = false;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer, void, undefined> {
    let complete = false;
    try {
      for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
      complete = true;
    } finally {
      // Left early (break, or the loop's body threw): the rest is not wanted.
      if (!complete) this.destroy();
    }
  }

  /**
   * Stops the body: the upstream call is cancelled with `err` unless it had already ended, and
   * a reader still waiting learns of it on the next microtask, after the chunk it may be
   * handling, as it would from a stream.
   */
  destroy(err: Error = new BodyDestroyedError()): void {
    if (this.failure || (this.ended && this.chunks.length === 0)) {
      if (!this.failure && this.ended) this.settled = true;
      return;
    }
    const upstreamOpen = !this.ended;
    this.failure = err;
    this.untap();
    this.chunks = [];
    this.bufferedBytes = 0;
    if (upstreamOpen) this.source?.abort(err);
    const reader = this.reader;
    if (reader && !this.settled) {
      this.settled = true;
      this.reader = null;
      queueMicrotask(() => reader.error(err));
    }
    this.wakeUp();
  }

  private flush(): void {
    const reader = this.reader;
    if (!reader) return;
    while (!this.readerPaused && this.chunks.length > 0) {
      const chunk = this.chunks.shift()!;
      this.bufferedBytes -= chunk.length;
      this.deliver(reader, chunk);
      if (this.failure) return;
    }
    if (this.readerPaused) {
      if (!this.ended) this.pauseSource();
      return;
    }
    if (this.ended) {
      if (!this.settled) {
        this.settled = true;
        // Told the end, the reader (a relay, with what it kept of the stream) is let go: the
        // body can stay referenced after its answer, and a relay kept with it held the stream's
        // socket buffers past the next scavenges (docs/performance.md, issue 26).
        this.reader = null;
        reader.end();
      }
    } else this.resumeSource();
  }

  private deliver(reader: BodyReader, chunk: Buffer): void {
    try {
      if (!reader.data(chunk)) this.readerPaused = true;
    } catch (err) {
      this.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private pauseSource(): void {
    if (this.sourcePaused || !this.source) return;
    this.sourcePaused = true;
    this.source.pause();
  }

  private resumeSource(): void {
    if (!this.sourcePaused || !this.source) return;
    this.sourcePaused = false;
    this.source.resume();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
