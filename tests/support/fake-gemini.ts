// The Gemini API mode of the fake upstream: `POST /v1beta/models/{model}:generateContent`,
// `:streamGenerateContent?alt=sse` and `:countTokens`, and `GET /v1beta/models`, answering in
// Google's shapes (candidates, parts, functionCall, usageMetadata, the `{error:{code,message,
// status}}` error body). The scripted faults are the fake's own: this module only builds bodies.

import type { FakeToolCall } from './fake-tools';

type Json = Record<string, unknown>;

/** A Gemini method call, from a request target (`/v1beta` or not, query ignored). */
export interface GeminiCall {
  model: string;
  method: 'generateContent' | 'streamGenerateContent' | 'countTokens';
}

const CALL = /^\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** `path` with the query and any `/v1beta` (or `/v1`) prefix already gone. */
export function geminiCall(path: string): GeminiCall | undefined {
  const m = CALL.exec(path);
  if (!m) return undefined;
  return { model: decodeURIComponent(m[1]!), method: m[2] as GeminiCall['method'] };
}

/** What Google calls each HTTP status in `error.status`. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's error body: `{error: {code, message, status}}` (a 429 also names its quota). */
export function geminiError(status: number, message: string): Json {
  const error: Json = {
    code: status,
    message,
    status: STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
  };
  if (status === 429) {
    error.details = [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          { quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests' },
        ],
      },
    ];
  }
  return { error };
}

/** A `streamError` step's only event: Google reports a failure mid-stream as an error chunk. */
export function geminiStreamError(err: unknown): string {
  const data =
    err === true ? geminiError(500, 'An internal error has occurred. Please retry.') : err;
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export interface GeminiUsage {
  input: number;
  output: number;
  /** Part of `input` read from the context cache (`cachedContentTokenCount`). */
  cached?: number;
  /** Part of `output` spent thinking (`thoughtsTokenCount`, left out of the candidates count). */
  reasoning?: number;
}

/** `usageMetadata` as Google counts: the prompt with its cached part, candidates without thoughts. */
export function usageMetadata(u: GeminiUsage): Json {
  const thoughts = u.reasoning ?? 0;
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: Math.max(0, u.output - thoughts),
    totalTokenCount: u.input + u.output,
    ...(u.cached !== undefined ? { cachedContentTokenCount: u.cached } : {}),
    ...(u.reasoning !== undefined ? { thoughtsTokenCount: u.reasoning } : {}),
  };
}

export interface GeminiReply {
  responseId: string;
  model: string;
  text: string;
  calls: FakeToolCall[];
  usage: GeminiUsage;
}

function callPart(c: FakeToolCall): Json {
  const args = typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments;
  return { functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args } };
}

function chunk(r: GeminiReply, parts: Json[], last: boolean): Json {
  const candidate: Json = { content: { role: 'model', parts }, index: 0 };
  if (last) candidate.finishReason = 'STOP';
  return {
    candidates: [candidate],
    // Each chunk carries the counts so far; the prompt is known from the first.
    usageMetadata: last
      ? usageMetadata(r.usage)
      : { promptTokenCount: r.usage.input, totalTokenCount: r.usage.input },
    modelVersion: r.model,
    responseId: r.responseId,
  };
}

/** A whole `generateContent` answer: the text, then the calls (Gemini ends them with STOP). */
export function geminiBody(r: GeminiReply): Json {
  const parts: Json[] = [...(r.text === '' ? [] : [{ text: r.text }]), ...r.calls.map(callPart)];
  return chunk(r, parts, true);
}

/**
 * A `streamGenerateContent?alt=sse` answer cut where the fake's faults cut: Gemini has no
 * opening event, a chunk per text piece, and the calls (whole: Gemini does not split their
 * arguments) with the finish reason and the final counts in the last chunk.
 */
export function geminiStream(
  r: GeminiReply,
  pieces: string[],
): { head: string; deltas: string[]; tail: string } {
  const data = (c: Json) => `data: ${JSON.stringify(c)}\n\n`;
  const tailParts = r.calls.length > 0 ? r.calls.map(callPart) : [{ text: '' }];
  return {
    head: '',
    deltas: pieces.map((text) => data(chunk(r, [{ text }], false))),
    tail: data(chunk(r, tailParts, true)),
  };
}

/** `GET /v1beta/models`. */
export function geminiModels(ids: readonly string[]): Json {
  return {
    models: ids.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    })),
  };
}
