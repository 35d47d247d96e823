/** How one upstream attempt ended before anything reached the client. */
export type AttemptFailure =
  | { kind: 'network'; errorClass: string; message: string }
  | { kind: 'client_abort' };

const NETWORK_MESSAGES: Record<string, [errorClass: string, message: string]> = {
  UND_ERR_CONNECT_TIMEOUT: ['timeout_connect', 'connect timed out'],
  UND_ERR_HEADERS_TIMEOUT: [
    'timeout_first_byte',
    'no response headers before the first-byte timeout',
  ],
  UND_ERR_BODY_TIMEOUT: ['timeout_idle', 'no data before the idle timeout'],
  BW_CONTENT_IDLE: ['timeout_idle', 'no content before the idle timeout (heartbeats only)'],
  ECONNREFUSED: ['network', 'connection refused'],
  ECONNRESET: ['network', 'connection reset'],
  ENOTFOUND: ['network', 'host not found (DNS)'],
  EAI_AGAIN: ['network', 'DNS lookup failed'],
  EHOSTUNREACH: ['network', 'host unreachable'],
  ENETUNREACH: ['network', 'network unreachable'],
  EPIPE: ['network', 'connection closed while sending'],
  UND_ERR_SOCKET: ['network', 'connection closed by the upstream'],
  UND_ERR_CLOSED: ['network', 'connection closed'],
};

/** Reason an attempt's AbortController was aborted by the gateway itself. */
export class DeadlineError extends Error {
  readonly code = 'BW_TOTAL_TIMEOUT';
  constructor(ms: number) {
    super(`no complete answer within the total deadline of ${ms} ms`);
  }
}

/** A stream that sent nothing but heartbeats for the idle timeout (RESILIENCE.md §6). */
export class ContentIdleError extends Error {
  readonly code = 'BW_CONTENT_IDLE';
  constructor(ms: number) {
    super(`no content for ${ms} ms (heartbeats do not count)`);
  }
}

export class ClientAbortError extends Error {
  readonly code = 'BW_CLIENT_ABORT';
  constructor() {
    super('client disconnected');
  }
}

function causeOf(err: unknown): { code?: string; message?: string } {
  let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
  // undici wraps socket errors; the useful code is on the innermost cause.
  for (let depth = 0; e && depth < 4; depth++) {
    if (e.code && e.code in NETWORK_MESSAGES) return e;
    if (!e.cause) break;
    e = e.cause as typeof e;
  }
  return (err as { code?: string; message?: string }) ?? {};
}

/** Whether and why an attempt was cancelled (an `AbortSignal` or an `AttemptCancel`). */
export interface CancelState {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/**
 * Cancels one upstream attempt: the call in flight and any wait it is in. The `AbortSignal`
 * the waits (queue, subscription lane) listen to is made only when one asks for it: nearly
 * every attempt waits for nothing, and a signal with a listener costs more than the rest of a
 * pass-through's bookkeeping.
 */
export class AttemptCancel implements CancelState {
  reason: Error | null = null;
  private controller: AbortController | null = null;
  private call: { abort(reason: Error): void } | null = null;

  get aborted(): boolean {
    return this.reason !== null;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** The upstream call now in flight, cancelled with the attempt. */
  bind(call: { abort(reason: Error): void }): void {
    this.call = call;
    if (this.reason) call.abort(this.reason);
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    this.call?.abort(reason);
  }
}

/** Maps an error thrown by undici (or our own abort reasons) to a class and a safe message. */
export function classifyAttemptError(err: unknown, signal: CancelState): AttemptFailure {
  const reason = signal.aborted ? signal.reason : undefined;
  if (reason instanceof ClientAbortError) return { kind: 'client_abort' };
  if (reason instanceof DeadlineError) {
    return { kind: 'network', errorClass: 'timeout_total', message: reason.message };
  }
  const cause = causeOf(err);
  const known = cause.code ? NETWORK_MESSAGES[cause.code] : undefined;
  if (known) return { kind: 'network', errorClass: known[0], message: known[1] };
  return {
    kind: 'network',
    errorClass: 'network',
    message: cause.message ?? 'upstream request failed',
  };
}

/** A body as undici's `request()` and `UpstreamBody` both give it. */
export interface ReadableBody extends AsyncIterable<Uint8Array> {
  readonly destroyed: boolean;
  destroy(): unknown;
}

/** Reads at most `limit` bytes of a body and discards the rest (error bodies are small). */
export async function readBounded(body: ReadableBody, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      if (size < limit) chunks.push(buf.subarray(0, limit - size));
      size += buf.length;
      if (size >= limit) break;
    }
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(chunks);
}
