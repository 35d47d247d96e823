import type { ServerResponse } from 'node:http';
import type { ClientFormat } from '../../../shared/contract';

/** Error families a client can act on; mapped to each API's own `type` vocabulary. */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'too_large'
  | 'rate_limit'
  | 'upstream'
  | 'overloaded'
  | 'timeout'
  | 'internal';

export interface GatewayError {
  status: number;
  kind: ErrorKind;
  /** Stable machine-readable code, e.g. `model_not_found`, `all_targets_cooling_down`. */
  code: string;
  message: string;
  param?: string;
  headers?: Record<string, string>;
  /** Extra top-level fields of the error object (e.g. `diagnostics`). */
  extra?: Record<string, unknown>;
}

const ANTHROPIC_TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  upstream: 'api_error',
  overloaded: 'overloaded_error',
  timeout: 'timeout_error',
  internal: 'api_error',
};

const OPENAI_TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'invalid_request_error',
  too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  upstream: 'api_error',
  overloaded: 'api_error',
  timeout: 'timeout_error',
  internal: 'server_error',
};

/** Google's `status` (a google.rpc.Code name) per kind, for Gemini API clients. */
const GOOGLE_STATUSES: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  upstream: 'INTERNAL',
  overloaded: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
  internal: 'INTERNAL',
};

export function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'too_large';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 529 || status === 503) return 'overloaded';
  return status >= 500 ? 'upstream' : 'invalid_request';
}

/** The error body in the caller's own API format. */
export function errorBody(format: ClientFormat, err: GatewayError): unknown {
  if (format === 'gemini') {
    // The gateway's code rides in an ErrorInfo, where Google's clients look for a reason.
    return {
      error: {
        code: err.status,
        message: err.message,
        status: GOOGLE_STATUSES[err.kind],
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: err.code,
            domain: 'breakwater',
          },
        ],
        ...err.extra,
      },
    };
  }
  if (format === 'anthropic') {
    return {
      type: 'error',
      error: {
        type: ANTHROPIC_TYPES[err.kind],
        message: err.message,
        code: err.code,
        ...err.extra,
      },
    };
  }
  return {
    error: {
      message: err.message,
      type: OPENAI_TYPES[err.kind],
      param: err.param ?? null,
      code: err.code,
      ...err.extra,
    },
  };
}

export function sendError(res: ServerResponse, format: ClientFormat, err: GatewayError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(format, err));
  res.writeHead(err.status, {
    ...err.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * A terminal SSE event in the client's format, for failures after the stream was committed:
 * the client sees a parseable error instead of a silently truncated answer. A Responses event
 * takes the stream's next `sequence_number`; it carries the fields both at the top (OpenAI's
 * event) and nested in `error` (the Open Responses schema), so clients of either accept it.
 */
export function streamErrorEvent(
  format: ClientFormat,
  err: GatewayError,
  sequenceNumber = 0,
): string {
  const body = errorBody(format, err);
  if (format === 'anthropic') return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  if (format === 'openai-responses') {
    const { type, code, message, param } = (body as { error: Record<string, unknown> }).error;
    const data = {
      type: 'error',
      sequence_number: sequenceNumber,
      code,
      message,
      param,
      error: { type, code, message, param },
    };
    return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
  }
  return `data: ${JSON.stringify(body)}\n\n`;
}

const SEQUENCE_NUMBER = /"sequence_number"\s*:\s*(\d+)/g;

/**
 * The sequence number after the last one in `tail` (the end of a relayed Responses stream), for
 * an error event the relay adds; 0 when none is there.
 */
export function nextSequenceNumber(tail: readonly Buffer[]): number {
  let last = -1;
  for (const m of Buffer.concat(tail).toString('latin1').matchAll(SEQUENCE_NUMBER)) {
    last = Number(m[1]);
  }
  return last + 1;
}
