// What every admin route table is made of: a route, and the request readers the tables share
// (a JSON body, an optional one, a decoded path parameter) with the errors they answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../../wire/body';
import { isJsonContentType } from '../../wire/guard';
import { AdminError } from '../operations';

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: string[],
  url: URL,
) => Promise<void> | void;

export interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

export interface RequestReaders {
  /** The JSON body; 415 unless it says it is JSON, 400 unless it parses. */
  body(req: IncomingMessage): Promise<unknown>;
  /** Like `body`, for an action whose body is optional (e.g. reset all breakers): none is `{}`. */
  optionalBody(req: IncomingMessage): Promise<unknown>;
  /** The first path parameter, URI-decoded; 400 when its escapes are malformed. */
  id(params: string[]): string;
}

async function jsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new AdminError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const raw = await readBody(req, limit);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new AdminError(
      400,
      'invalid_json',
      `request body is not valid JSON: ${(err as Error).message}`,
    );
  }
}

export function requestReaders(maxBodyBytes: number): RequestReaders {
  const body = (req: IncomingMessage) => jsonBody(req, maxBodyBytes);
  return {
    body,
    optionalBody: (req) =>
      req.headers['content-length'] === '0' ||
      (req.headers['content-length'] === undefined &&
        req.headers['transfer-encoding'] === undefined)
        ? Promise.resolve({})
        : body(req),
    id(params) {
      try {
        return decodeURIComponent(params[0]!);
      } catch {
        throw new AdminError(400, 'invalid_path', `malformed escape in ${params[0]}`);
      }
    },
  };
}

/** A PUT names its record in the URL; a body naming another one is refused, not obeyed. */
export function rejectOtherKey(input: unknown, key: 'id' | 'name', value: string): void {
  if (
    typeof input === 'object' &&
    input !== null &&
    key in input &&
    (input as Record<string, unknown>)[key] !== value
  ) {
    throw new AdminError(400, 'id_mismatch', `body ${key} does not match the URL (${value})`, key);
  }
}
