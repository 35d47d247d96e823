import type { ClientFormat } from '../../../shared/contract';
import { redactSecrets } from '../logger';
import { errorBody, kindForStatus } from '../wire/client-errors';

type Json = Record<string, unknown>;

/** The human message inside an error body of any of the three formats, if there is one. */
export function upstreamErrorMessage(parsed: unknown): string | null {
  const root = parsed as Json | null;
  const err =
    root && typeof root === 'object' ? (root.error as Json | string | undefined) : undefined;
  if (typeof err === 'string') return err;
  if (err && typeof err.message === 'string') return err.message;
  if (root && typeof root.message === 'string') return root.message;
  return null;
}

function isClientShaped(format: ClientFormat, parsed: unknown): boolean {
  const root = parsed as Json | null;
  if (!root || typeof root !== 'object') return false;
  const err = root.error as Json | undefined;
  if (!err || typeof err !== 'object' || typeof err.message !== 'string') return false;
  if (format === 'gemini') return typeof err.code === 'number' && typeof err.status === 'string';
  return format === 'anthropic' ? root.type === 'error' && typeof err.type === 'string' : true;
}

/**
 * An error body read once: its text, its JSON (if any), and the upstream's own message (the JSON
 * message, else up to 300 characters of the text) with known secrets scrubbed; '' when empty.
 */
export function readUpstreamError(
  raw: Buffer,
  secrets: readonly string[],
): { text: string; parsed: unknown; message: string } {
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fromJson = upstreamErrorMessage(parsed);
  // Redact before cutting: a secret split by the cut would no longer match.
  const message =
    fromJson !== null
      ? redactSecrets(fromJson, secrets)
      : redactSecrets(text.trim(), secrets).slice(0, 300);
  return { text, parsed, message };
}

/**
 * An upstream error response rewritten for the client: passed through when it is already in
 * the client's format, wrapped otherwise (HTML from a proxy, plain text, another API's shape).
 * Known secrets are scrubbed either way, since providers sometimes echo the key they rejected.
 */
export function clientErrorFromUpstream(
  format: ClientFormat,
  status: number,
  raw: Buffer,
  providerId: string,
  secrets: readonly string[],
): { body: string; message: string } {
  const { text, parsed, message: said } = readUpstreamError(raw, secrets);
  const message = said || `HTTP ${status} with an empty body`;
  if (parsed !== undefined && isClientShaped(format, parsed)) {
    return { body: redactSecrets(text, secrets), message };
  }
  const body = errorBody(format, {
    status,
    kind: kindForStatus(status),
    code: 'upstream_error',
    message: `provider ${providerId} answered HTTP ${status}: ${message}`,
  });
  return { body: JSON.stringify(body), message };
}
