import type { UpstreamBody } from './upstream-body';

const PEEK_LIMIT = 64 * 1024;

/** An error that arrived as the first event of a 200 event stream, as if it were a status. */
export interface FirstEventError {
  status: number;
  /** The error as JSON text, for classification and relay like an error body. */
  raw: Buffer;
}

// The status each API's error type stands for, so classification sees what a non-streaming
// request would have seen.
const TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
  timeout_error: 504,
};

function statusOf(error: Record<string, unknown>): number {
  // Google's errors carry the HTTP status itself.
  if (typeof error.code === 'number' && error.code >= 400 && error.code < 600) return error.code;
  for (const key of ['type', 'code'] as const) {
    const v = error[key];
    if (typeof v === 'string' && TYPE_STATUS[v]) return TYPE_STATUS[v];
  }
  return 502;
}

/** The error object of a parsed first event, if the event is an error before any content. */
function firstEventError(eventName: string | null, data: unknown): Record<string, unknown> | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  const err = d.error;
  if (
    typeof err === 'object' &&
    err !== null &&
    (eventName === 'error' || d.type === 'error' || !('choices' in d))
  ) {
    return err as Record<string, unknown>;
  }
  // Responses' `error` event carries its fields at the top level.
  if ((eventName === 'error' || d.type === 'error') && typeof d.message === 'string') return d;
  if (d.type === 'response.failed') {
    const inner = (d.response as Record<string, unknown> | undefined)?.error;
    if (typeof inner === 'object' && inner !== null) return inner as Record<string, unknown>;
  }
  return null;
}

function parseFirstEvent(text: string): { name: string | null; data: unknown } | null {
  let name: string | null = null;
  const data: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return null;
  try {
    return { name, data: JSON.parse(data.join('\n')) };
  } catch {
    return null;
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The first blank line at or after `from`, found where /\r?\n\r?\n/ would match: `end` is where
 * the block before it ends, `next` where the following block starts. Null until it has arrived
 * whole (a byte past the end reads as undefined, so a separator cut short is no match yet).
 */
function blankLine(bytes: Buffer, from: number): { end: number; next: number } | null {
  for (let nl = bytes.indexOf(LF, from); nl !== -1; nl = bytes.indexOf(LF, nl + 1)) {
    const crlf = bytes[nl + 1] === CR && bytes[nl + 2] === LF;
    if (bytes[nl + 1] !== LF && !crlf) continue;
    // A block starts after a newline, so a CR just before this one is still inside the block.
    return { end: bytes[nl - 1] === CR ? nl - 1 : nl, next: nl + (crlf ? 3 : 2) };
  }
  return null;
}

/**
 * Whether an event could be an error: every error shape above has "error" in its name, type or
 * key, unless JSON escapes spell it. Healthy streams skip parsing their first event.
 */
function mayBeError(block: string): boolean {
  return block.includes('error') || block.includes('\\u');
}

/** Whether a block is an event rather than only comment lines (or nothing). */
function isEvent(block: string): boolean {
  return block.split(/\r?\n/).some((l) => l && !l.startsWith(':'));
}

/**
 * Reads a 200 event stream up to its first complete event (skipping comment lines). When that
 * event is an error, returns it, the stream is spent and the caller treats it like an error
 * status. Otherwise the chunks read here are put back in front of the body, so whoever reads it
 * next gets the stream byte for byte, with nothing copied.
 */
export async function peekFirstEventError(body: UpstreamBody): Promise<FirstEventError | null> {
  const seen: Buffer[] = [];
  let size = 0;
  // Where the first block not yet known to be only comments starts, so none is read twice.
  let from = 0;
  try {
    for (let chunk = await body.next(); chunk !== null; chunk = await body.next()) {
      seen.push(chunk);
      size += chunk.length;
      // The first event nearly always comes whole in the first chunk: join only when it did not.
      const bytes = seen.length === 1 ? chunk : Buffer.concat(seen, size);
      let firstEvent: string | undefined;
      for (let blank = blankLine(bytes, from); blank; blank = blankLine(bytes, from)) {
        const block = bytes.toString('utf8', from, blank.end);
        from = blank.next;
        if (isEvent(block)) {
          firstEvent = block;
          break;
        }
      }
      if (firstEvent !== undefined || size >= PEEK_LIMIT) {
        const parsed =
          firstEvent !== undefined && mayBeError(firstEvent) ? parseFirstEvent(firstEvent) : null;
        const err = parsed ? firstEventError(parsed.name, parsed.data) : null;
        if (err) return { status: statusOf(err), raw: Buffer.from(JSON.stringify(parsed!.data)) };
        break;
      }
    }
  } finally {
    body.unshift(seen);
  }
  return null;
}
