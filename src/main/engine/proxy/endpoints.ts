import type { ClientFormat } from '../../../shared/contract';

export interface Endpoint {
  path: string;
  format: ClientFormat;
  /** Counting tokens never streams and never produces content. */
  countTokens: boolean;
  /** Human name for error messages. */
  label: string;
}

const ENDPOINTS: readonly Endpoint[] = [
  {
    path: '/v1/chat/completions',
    format: 'openai-chat',
    countTokens: false,
    label: 'OpenAI Chat Completions',
  },
  {
    path: '/v1/responses',
    format: 'openai-responses',
    countTokens: false,
    label: 'OpenAI Responses',
  },
  { path: '/v1/messages', format: 'anthropic', countTokens: false, label: 'Anthropic Messages' },
  {
    path: '/v1/messages/count_tokens',
    format: 'anthropic',
    countTokens: true,
    label: 'Anthropic count_tokens',
  },
];

const BY_PATH = new Map(ENDPOINTS.map((e) => [e.path, e]));

/** A request target longer than this (path and query) is refused with 414 before it is parsed. */
export const MAX_URL_LENGTH = 8192;

export function findEndpoint(pathname: string): Endpoint | undefined {
  return BY_PATH.get(withoutTrailingSlashes(pathname));
}

/**
 * A backwards scan, linear in the path: the regex `/\/+$/` retries from every slash of a run
 * that does not end the path, which is quadratic, and a path is read before any check.
 */
function withoutTrailingSlashes(pathname: string): string {
  let end = pathname.length;
  while (end > 1 && pathname.charCodeAt(end - 1) === 0x2f) end--;
  return end === pathname.length ? pathname : pathname.slice(0, end);
}

/** Error format for a path that is not an endpoint: Anthropic-looking callers get theirs. */
export function formatForUnknownPath(pathname: string, anthropicVersion: unknown): ClientFormat {
  return pathname.startsWith('/v1/messages') || anthropicVersion !== undefined
    ? 'anthropic'
    : 'openai-chat';
}
