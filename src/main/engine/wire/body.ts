import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds the limit of ${limit} bytes`);
  }
}

export class BodyAbortedError extends Error {
  constructor() {
    super('client closed the connection while sending the body');
  }
}

/**
 * Reads the whole request body, refusing early (by Content-Length, then by counting) when it
 * exceeds `limit`, so an oversized upload is never buffered.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    collectBody(req, limit, (err, chunks, size) =>
      err ? reject(err) : resolve(joinChunks(chunks!, size)),
    ),
  );
}

/** A body's chunks as one buffer: the chunk itself when there is one, else a new join. */
export function joinChunks(chunks: readonly Buffer[], size: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * Told once: the whole body as the chunks it arrived in and their total size (the caller joins
 * them, into memory of its choosing), or why there is none (BodyTooLargeError, BodyAbortedError).
 */
export type BodyDone = (
  err: BodyTooLargeError | BodyAbortedError | null,
  chunks: readonly Buffer[] | null,
  size: number,
) => void;

/**
 * `readBody` for a caller that makes its own promise of the outcome (the proxy's front door,
 * on every request): one promise per body, not one for the bytes and another for the answer.
 * A Content-Length over the limit is told before this returns.
 */
export function collectBody(req: IncomingMessage, limit: number, told: BodyDone): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    told(new BodyTooLargeError(limit), null, 0);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const finish = (err: BodyTooLargeError | BodyAbortedError | null) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', onClose);
    if (err) told(err, null, 0);
    else told(null, chunks, size);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      // Stop reading; the caller answers 413 and closes the connection.
      req.pause();
      finish(new BodyTooLargeError(limit));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => finish(null);
  // The request stream fails only when its connection does (Node's `aborted`, a reset): the
  // client went away mid-upload, like a close.
  const onError = () => finish(new BodyAbortedError());
  const onClose = () => finish(new BodyAbortedError());
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
}
