import type { IncomingHttpHeaders } from 'node:http';
import type { ClientFormat } from '../../../shared/contract';

export interface Endpoint {
  path: string;
  format: ClientFormat;
  /** Counting tokens never streams and never produces content. */
  countTokens: boolean;
  /** Human name for error messages. */
  label: string;
  /** A Gemini API call names its model and whether it streams in the path, not the body. */
  gemini?: { model: string; stream: boolean };
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

/**
 * The endpoint a path names, in the spellings clients build from a base URL: `/v1/messages`,
 * `/messages` (a base URL without `/v1`, as opencode's Anthropic provider appends) and
 * `/v1/v1/messages` (a base URL that already ended in `/v1`). Each is a fixed number of
 * prefix checks and map lookups, so the cost stays linear in the path.
 */
export function findEndpoint(pathname: string): Endpoint | undefined {
  const path = withoutTrailingSlashes(pathname);
  const found = BY_PATH.get(path) ?? BY_PATH.get(`/v1${path}`);
  if (found) return found;
  if (path.startsWith('/v1/v1/')) return BY_PATH.get(path.slice(3));
  return geminiEndpoint(path);
}

const GEMINI_METHODS: Record<string, { stream: boolean; countTokens: boolean }> = {
  generateContent: { stream: false, countTokens: false },
  streamGenerateContent: { stream: true, countTokens: false },
  countTokens: { stream: false, countTokens: true },
};

/** `/v1beta` as the Gemini SDKs send it, doubled from a base URL that had it, or `/v1`. */
export function withoutGeminiVersion(path: string): string | null {
  for (const prefix of ['/v1beta/v1beta/', '/v1beta/', '/v1/']) {
    if (path.startsWith(prefix)) return path.slice(prefix.length - 1);
  }
  return null;
}

/** `/v1beta/models/{model}:{method}`; the model may hold slashes (`provider/model`). */
function geminiEndpoint(path: string): Endpoint | undefined {
  const rest = withoutGeminiVersion(path);
  if (rest === null || !rest.startsWith('/models/')) return undefined;
  const colon = rest.lastIndexOf(':');
  const method = colon > 8 ? GEMINI_METHODS[rest.slice(colon + 1)] : undefined;
  if (!method) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(rest.slice(8, colon));
  } catch {
    return undefined;
  }
  return {
    path,
    format: 'gemini',
    countTokens: method.countTokens,
    label: 'Gemini API',
    gemini: { model, stream: method.stream },
  };
}

/** A Gemini client's key: `x-goog-api-key`, or `?key=` as Google's REST examples send it. */
export function googleKey(headers: IncomingHttpHeaders, url: URL): string | null {
  const h = headers['x-goog-api-key'];
  if (typeof h === 'string' && h.length > 0) return h;
  return url.searchParams.get('key') || null;
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
  if (pathname.startsWith('/v1beta/')) return 'gemini';
  return pathname.startsWith('/v1/messages') ||
    pathname.startsWith('/messages') ||
    pathname.startsWith('/v1/v1/messages') ||
    anthropicVersion !== undefined
    ? 'anthropic'
    : 'openai-chat';
}
