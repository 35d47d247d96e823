import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, type GatewayError } from '../wire/client-errors';

/** How long and how much a client may hold of the server before it is cut off. */
export interface ClientLimits {
  /** To send the request line and headers (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** To send the whole request, body included (Node's `requestTimeout`); answers are not bound. */
  requestTimeoutMs: number;
  /** Open sockets from one remote address; one local process must not exhaust descriptors. */
  socketsPerAddress: number;
}

export const DEFAULT_CLIENT_LIMITS: ClientLimits = {
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 30_000,
  socketsPerAddress: 1024,
};

/** Node's parse errors and timeouts as the answer a client can read (never a bare 400). */
export function clientErrorFor(code: string | undefined): GatewayError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      kind: 'timeout',
      code: 'request_timeout',
      message: 'the request (headers and body) was not received in time',
    };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      kind: 'invalid_request',
      code: 'request_header_fields_too_large',
      message: 'the request headers are too large',
    };
  }
  return {
    status: 400,
    kind: 'invalid_request',
    code: 'malformed_request',
    message: `the request is not valid HTTP/1.1 (${code ?? 'parse error'})`,
  };
}

/**
 * Writes an error answer straight to a socket the HTTP parser gave up on, then closes it. The
 * API's JSON shape: the path is unknown (the request did not parse), so the OpenAI one.
 */
export function endWithError(socket: Socket, err: GatewayError): void {
  const body = JSON.stringify(errorBody('openai-chat', err));
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Whether a socket's current answer has its head out: then raw bytes would corrupt it. */
export function answerStarted(socket: Socket): boolean {
  // Node's own clientError default reads the same field: the response bound to the socket.
  return (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
}

/** Counts open sockets per remote address. */
export class SocketsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Counts `socket` in, or answers false when its address already holds the limit. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? '';
    const n = this.open.get(address) ?? 0;
    if (n >= this.limit) return false;
    this.open.set(address, n + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left === 0) this.open.delete(address);
      else this.open.set(address, left);
    });
    return true;
  }
}
