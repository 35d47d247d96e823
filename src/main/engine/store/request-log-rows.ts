// How a request-log entry is stored: its row, the column list, and the conversions both ways.

import type { ClientFormat, RequestLogEntry } from '../../../shared/contract';

const MAX_TEXT = 4096;

export interface LogRow {
  id: number;
  at: number;
  client_format: string | null;
  model_requested: string | null;
  target: string | null;
  provider: string | null;
  connection: string | null;
  status: number | null;
  latency_ms: number | null;
  ttfb_ms: number | null;
  stream: number | null;
  bytes_in: number | null;
  bytes_out: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  error_class: string | null;
  error_message: string | null;
  decision: string | null;
  egress_ip: string | null;
  key_name: string | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
}

/** The entry's fields in the table's column order (`stream` is stored as 0 or 1, a missing field as NULL). */
const FIELDS: readonly (keyof RequestLogEntry)[] = [
  'id',
  'at',
  'clientFormat',
  'modelRequested',
  'target',
  'provider',
  'connection',
  'status',
  'latencyMs',
  'ttfbMs',
  'stream',
  'bytesIn',
  'bytesOut',
  'inputTokens',
  'outputTokens',
  'cachedTokens',
  'errorClass',
  'errorMessage',
  'decision',
  'egressIp',
  'keyName',
  'cacheWriteTokens',
  'reasoningTokens',
  'costUsd',
];

/** The columns, named for the fields: `cachedTokens` is `cached_tokens`. */
export const COLUMNS = FIELDS.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)).join(
  ', ',
);

/** Parameters of one row in an insert. */
export const ROW_PARAMETERS = FIELDS.length;

/**
 * An insert of `rows` rows, positional parameters in COLUMNS order (binding by name costs a
 * lookup per column per row). One statement for many rows: SQLite's per-statement work (step,
 * reset, the parameters' bookkeeping) is paid once for all of them.
 */
export function insertSql(rows: number): string {
  const row = `(${Array.from({ length: ROW_PARAMETERS }, () => '?').join(', ')})`;
  return `INSERT INTO request_log (${COLUMNS}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
}

/** Writes the entry's parameters into `into` from `at` on, in COLUMNS order. */
export function putRow(e: RequestLogEntry, into: unknown[], at: number): void {
  for (let i = 0; i < FIELDS.length; i++) {
    const v = e[FIELDS[i]!];
    into[at + i] = typeof v === 'boolean' ? (v ? 1 : 0) : (v ?? null);
  }
}

/** Copies the entry into a shape SQLite can always bind (no undefined, booleans, NaN). */
export function normalize(
  input: Omit<RequestLogEntry, 'id'>,
  id: number,
  now: () => number,
): RequestLogEntry {
  return {
    id,
    at: int(input.at) ?? now(),
    clientFormat: String(input.clientFormat ?? '') as ClientFormat,
    modelRequested: String(input.modelRequested ?? ''),
    target: text(input.target),
    provider: text(input.provider),
    connection: text(input.connection),
    status: int(input.status) ?? 0,
    latencyMs: int(input.latencyMs) ?? 0,
    ttfbMs: int(input.ttfbMs),
    stream: input.stream === true,
    bytesIn: int(input.bytesIn) ?? 0,
    bytesOut: int(input.bytesOut) ?? 0,
    inputTokens: int(input.inputTokens),
    outputTokens: int(input.outputTokens),
    cachedTokens: int(input.cachedTokens),
    errorClass: text(input.errorClass),
    errorMessage: text(input.errorMessage),
    decision: text(input.decision),
    egressIp: text(input.egressIp),
    keyName: text(input.keyName),
    cacheWriteTokens: int(input.cacheWriteTokens),
    reasoningTokens: int(input.reasoningTokens),
    costUsd: real(input.costUsd),
  };
}

function int(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

function real(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = typeof value === 'string' ? value : String(value);
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s;
}

export function fromRow(row: LogRow): RequestLogEntry {
  return {
    id: row.id,
    at: row.at,
    clientFormat: (row.client_format ?? '') as ClientFormat,
    modelRequested: row.model_requested ?? '',
    target: row.target,
    provider: row.provider,
    connection: row.connection,
    status: row.status ?? 0,
    latencyMs: row.latency_ms ?? 0,
    ttfbMs: row.ttfb_ms,
    stream: row.stream === 1,
    bytesIn: row.bytes_in ?? 0,
    bytesOut: row.bytes_out ?? 0,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedTokens: row.cached_tokens,
    errorClass: row.error_class,
    errorMessage: row.error_message,
    decision: row.decision,
    egressIp: row.egress_ip,
    keyName: row.key_name,
    cacheWriteTokens: row.cache_write_tokens,
    reasoningTokens: row.reasoning_tokens,
    costUsd: row.cost_usd,
  };
}
