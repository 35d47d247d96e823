// The admin operations both transports run: the HTTP admin API (http.ts) and the desktop's
// in-process actions (actions.ts). Each lives here once, so both answer with the same data and the
// same error code and message.

import type {
  ConnectionTestResult,
  GatewayAddressView,
  GatewayRunState,
  LeaseView,
  ReplayResult,
  RequestLogEntry,
  SessionCacheView,
  SessionSummary,
} from '../../../shared/contract';

import { ValidationError } from '../config/validate';
import type { Logger } from '../logger';
import type { ShapeRepairs } from '../resilience/shape';
import { VERSION } from '../version';
import { AddressError } from '../wire/address-error';
import { BodyAbortedError, BodyTooLargeError } from '../wire/body';
import { type AdminService, ConflictError, NotFoundError } from './service';
import type { WebSearchAdmin } from './web-search';

export interface AdminOperations {
  service: AdminService;
  /** Pauses or resumes the proxy. */
  setPaused?(paused: boolean): GatewayRunState;
  /** Moves the gateway to another host and port while it serves (`POST /api/gateway/address`). */
  setAddress?(input: unknown): Promise<GatewayAddressView>;
  /** Operator release of a connection's exclusive lease; null when none is active. */
  releaseLease?(connection: string): LeaseView | null;
  /** Request-shape fixes learnt from providers' 400s (`/api/resilience/learned-fixes`). */
  learnedFixes?: ShapeRepairs;
  /** The web search backend (`/api/web-search`). */
  webSearch?: WebSearchAdmin;
  log: Logger;
  /** Where the gateway listens: connecting an agent needs loopback, and points it there. */
  listening?(): { host: string; baseUrl: string };
  /** Where first-run detection looks for provider key variables. */
  env?: NodeJS.ProcessEnv;
  /** Base URL per local preset id instead of its default port (tests point at a fake server). */
  localServerUrls?: Readonly<Record<string, string>>;
  /** Sends a captured request again (`POST /api/logs/{id}/replay`), optionally to another target. */
  replay?(id: number, target: string | null): Promise<ReplayResult>;
  /** An agent session's turns so far (`GET /api/sessions/{id}`); null when it made none. */
  session?(id: string): SessionSummary | null;
  /** Recent sessions' prompt-cache reads per turn (`GET /api/usage/cache`). */
  sessionCache?(): SessionCacheView[];
}

/** An admin failure as the client sees it: HTTP status, `error.code`, message, field. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * Maps whatever an operation threw to what the client is told. Anything unexpected is logged
 * with its stack and answered with a generic 500, so internals never reach the client.
 */
export function adminError(err: unknown, log: Logger, what: string): AdminError {
  if (err instanceof AdminError) return err;
  if (err instanceof ValidationError) {
    return new AdminError(400, 'invalid_field', err.message, err.field);
  }
  if (err instanceof NotFoundError) return new AdminError(404, 'not_found', err.message);
  if (err instanceof ConflictError) return new AdminError(409, 'conflict', err.message);
  if (err instanceof AddressError)
    return new AdminError(err.status, err.code, err.message, err.field);
  if (err instanceof BodyTooLargeError) return new AdminError(413, 'body_too_large', err.message);
  // Nobody is left to read the answer; not the gateway's failure.
  if (err instanceof BodyAbortedError) {
    log.debug(`admin: ${what}: ${err.message}`);
    return new AdminError(400, 'client_aborted', err.message);
  }
  log.error(`admin: ${what} failed: ${(err as Error).stack ?? String(err)}`);
  return new AdminError(500, 'internal_error', 'internal error; see the gateway log');
}

/** `GET /api/logs`: the request log, filtered by the query string's parameters. */
export function recentLogs(service: AdminService, params: URLSearchParams): RequestLogEntry[] {
  const num = (name: string) => {
    const v = params.get(name);
    if (v === null) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) {
      throw new AdminError(400, 'invalid_query', `${name} must be an integer`, name);
    }
    return n;
  };
  const provider = params.get('provider') ?? undefined;
  const connection = params.get('connection') ?? undefined;
  const beforeId = num('beforeId');
  const status = num('status');
  return service.logs({
    limit: num('limit') ?? 100,
    ...(beforeId !== undefined ? { beforeId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(provider ? { provider } : {}),
    ...(connection ? { connection } : {}),
    errorsOnly: params.get('errors') === 'true',
  });
}

export async function testConnection(
  ops: AdminOperations,
  connection: string,
): Promise<ConnectionTestResult> {
  const result = await ops.service.testConnection(connection, {
    userAgent: `breakwater/${VERSION}`,
  });
  // The message is already scrubbed of the secret; the logger redacts again on the way out.
  ops.log.info(
    `connection test ${connection}: ${result.ok ? 'ok' : 'failed'} in ${result.latencyMs} ms (${result.message})`,
  );
  return result;
}

export function setPaused(ops: AdminOperations, paused: boolean): GatewayRunState {
  if (!ops.setPaused) throw new AdminError(404, 'not_found', 'pausing is not available');
  return ops.setPaused(paused);
}

export function setGatewayAddress(
  ops: AdminOperations,
  input: unknown,
): Promise<GatewayAddressView> {
  if (!ops.setAddress)
    throw new AdminError(404, 'not_found', 'moving the gateway is not available');
  return ops.setAddress(input);
}

/** `{connection}` → the lease it ended. */
export function releaseLease(ops: AdminOperations, input: unknown): { released: LeaseView } {
  if (!ops.releaseLease) throw new AdminError(404, 'not_found', 'leases are not available');
  const connection = (input as { connection?: unknown } | null)?.connection;
  if (typeof connection !== 'string' || connection === '') {
    throw new AdminError(
      400,
      'invalid_field',
      'connection must be the id of a leased connection',
      'connection',
    );
  }
  const released = ops.releaseLease(connection);
  if (!released) throw new NotFoundError(`active lease on connection ${connection}`);
  return { released };
}

/** A log id from a path: a positive integer. */
export function logId(text: string): number {
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new AdminError(400, 'invalid_path', `log id must be a positive integer, not "${text}"`);
  }
  return id;
}

/** `{target?}` → the target to replay on, or null for the one the request named. */
export function replayLog(ops: AdminOperations, id: number, input: unknown): Promise<ReplayResult> {
  if (!ops.replay) throw new AdminError(404, 'not_found', 'replay is not available');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('body', 'must be a JSON object: {} or {"target": "provider/model"}');
  }
  const target = (input as { target?: unknown }).target;
  if (target !== undefined && target !== null && (typeof target !== 'string' || !target.trim())) {
    throw new ValidationError('target', 'must be a combo, a model or a provider/model');
  }
  return ops.replay(id, typeof target === 'string' ? target.trim() : null);
}

export function sessionSummary(ops: AdminOperations, id: string): SessionSummary {
  const summary = ops.session?.(id) ?? null;
  if (!summary) throw new NotFoundError(`session "${id}"`);
  return summary;
}
