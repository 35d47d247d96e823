// What the request log keeps of a captured call (`requestLog.captureBodies`), what
// `GET /api/logs/{id}` answers, a replay's result, and a session's summary (`breakwater statusline`).

import type { RequestLogEntry } from './state';

/** One side of an exchange as captured: secrets redacted, a body cut after `captureMaxBytes`. */
export interface CapturedMessage {
  headers: Record<string, string>;
  /**
   * The body as text; for an event stream whose middle was not kept, its first and last events
   * around a `: …` comment line. Null when it was not kept.
   */
  body: string | null;
  /** The body was longer than `requestLog.captureMaxBytes` (or than what was kept of a stream). */
  truncated: boolean;
}

export interface CapturedRequest extends CapturedMessage {
  method: string;
  url: string;
}

export interface CapturedResponse extends CapturedMessage {
  status: number | null;
}

/** One upstream attempt of a captured request. */
export interface CapturedAttempt {
  target: string;
  connection: string;
  /** The HTTP status the upstream answered, or null when nothing answered. */
  status: number | null;
  startedAt: number;
  durationMs: number | null;
  /** Why nothing answered (network error, timeout), else null. */
  error: string | null;
  /** The request as it was sent upstream: after translation and learnt fixes. */
  request: CapturedRequest;
  /** Null when nothing answered. */
  response: CapturedResponse | null;
}

/** The client's own request, as the gateway received it: what a replay sends again. */
export interface CapturedClientRequest extends CapturedMessage {
  method: string;
  /** The gateway path with its query, e.g. `/v1/messages?beta=true`. */
  path: string;
}

/** `GET /api/logs/{id}`: the row, and what was captured of it (`attempts: []` when nothing). */
export interface RequestLogDetail extends RequestLogEntry {
  attempts: CapturedAttempt[];
  /** Null when the request was not captured. */
  client: CapturedClientRequest | null;
}

/** `POST /api/logs/{id}/replay`: the new row. */
export interface ReplayResult {
  id: number;
  status: number;
}

/** `GET /api/sessions/{id}`: an agent session's turns so far. */
export interface SessionSummary {
  id: string;
  /** The combo and the rule that routed its last turn, when one did. */
  combo: string | null;
  rule: string | null;
  /** The target (`provider/model`) and connection that served its last turn. */
  target: string | null;
  connection: string | null;
  lastAt: number | null;
  lastStatus: number | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** What the serving connection's quota has left, when its upstream said. */
  quota: { window: string; percentLeft: number; resetAt: number | null } | null;
}
