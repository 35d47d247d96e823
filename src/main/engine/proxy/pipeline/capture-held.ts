// What a captured call holds while its request runs (capture.ts fills it): references to the
// buffers and header objects the call made anyway, never copies.

import type { IncomingHttpHeaders } from 'node:http';
import type { CapturedAttempt, CapturedClientRequest } from '../../../../shared/contract';
import type { BodyTap } from '../../upstream/upstream-body';
import type { OutgoingBody } from '../../wire/body-pieces';

export type CaptureMode = 'failed' | 'all' | 'off';

export interface CaptureSettings {
  mode: CaptureMode;
  maxBytes: number;
}

/** What the request log stores of a captured request (capture-build.ts makes it). */
export interface StoredCapture {
  client: CapturedClientRequest | null;
  attempts: CapturedAttempt[];
}

/** One attempt as it went, by reference. */
export interface HeldAttempt {
  readonly target: string;
  readonly connection: string;
  readonly startedAt: number;
  endedAt: number | null;
  baseUrl: string;
  path: string;
  headers: Readonly<Record<string, string>> | null;
  /** As it went out: pieces stay pieces until a capture is built, which most requests never are. */
  body: OutgoingBody | null;
  status: number | null;
  responseHeaders: IncomingHttpHeaders | null;
  responseBody: Buffer | null;
  /** What an answer relayed to the client left of itself (see AnswerKeep). */
  kept: AnswerKeep | null;
  error: string | null;
}

/** A request's capture while it runs. */
export interface HeldCapture {
  readonly mode: 'failed' | 'all';
  readonly maxBytes: number;
  /** The client's body; let go with the others when `failed` and the answer began. */
  client: Buffer | null;
  readonly attempts: HeldAttempt[];
}

/**
 * The answer's head went to the client: with `failed`, the request bodies are let go as the
 * request lets go of its own (context.ts `committed`), so a long stream holds no copy for a
 * capture it will most likely not need.
 */
export function releaseRequestBodies(held: HeldCapture | null | undefined): void {
  if (held?.mode !== 'failed') return;
  held.client = null;
  for (const a of held.attempts) a.body = null;
}

/**
 * Sees an answer's chunks as the relay passes them on, keeping references: with `all`, the
 * chunks up to the size limit; with `failed`, only the first one; and always the last two, so a
 * stream's first and last events can be shown.
 */
export class AnswerKeep implements BodyTap {
  readonly head: Buffer[] = [];
  headBytes = 0;
  total = 0;
  last: Buffer | null = null;
  beforeLast: Buffer | null = null;

  constructor(
    private readonly headLimit: number,
    private readonly inner: BodyTap | null,
    private readonly done: () => void,
  ) {}

  chunk(chunk: Buffer): void {
    this.inner?.chunk(chunk);
    this.see(chunk);
  }

  /** Keeps a chunk the inner tap is not to see again. */
  see(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.headLimit) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      return;
    }
    this.beforeLast = this.last;
    this.last = chunk;
  }

  settled(): void {
    this.inner?.settled();
    this.done();
  }
}
