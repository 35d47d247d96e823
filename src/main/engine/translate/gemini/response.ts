// Whole (non-streamed) Gemini answers and error bodies ↔ IR, and the finish reason and usage
// mapping the stream modules share. https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
import { kindForStatus } from '../../wire/client-errors';
import {
  arr,
  emptyUsage,
  type IrError,
  type IrResponse,
  type IrStop,
  type IrUsage,
  type Json,
  num,
  obj,
  str,
} from '../ir';
import { CallIds, partsIn, partsOut } from './request';

const BLOCKED: IrStop = 'content_filter';

export const FINISH_IN: Record<string, IrStop> = {
  STOP: 'end',
  MAX_TOKENS: 'max_tokens',
  SAFETY: BLOCKED,
  RECITATION: BLOCKED,
  BLOCKLIST: BLOCKED,
  PROHIBITED_CONTENT: BLOCKED,
  SPII: BLOCKED,
  IMAGE_SAFETY: BLOCKED,
  LANGUAGE: BLOCKED,
};

export const FINISH_OUT: Record<IrStop, string> = {
  end: 'STOP',
  stop_sequence: 'STOP',
  tool_use: 'STOP',
  pause: 'STOP',
  max_tokens: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  refusal: 'SAFETY',
};

/** A finish reason as an IR stop; Gemini ends a turn of function calls with a plain STOP. */
export function stopOf(finish: string, sawCall: boolean): IrStop {
  const stop = FINISH_IN[finish] ?? 'end';
  return stop === 'end' && sawCall ? 'tool_use' : stop;
}

/** `candidatesTokenCount` leaves out the thoughts; IR output (OpenAI's convention) counts them. */
export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  const thoughts = num(usage.thoughtsTokenCount);
  const candidates = num(usage.candidatesTokenCount);
  out.input = num(usage.promptTokenCount);
  out.output =
    candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0);
  out.cached = num(usage.cachedContentTokenCount);
  out.reasoning = thoughts;
  return out;
}

export function usageOut(u: IrUsage): Json {
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  return {
    promptTokenCount: input,
    candidatesTokenCount: Math.max(0, output - (u.reasoning ?? 0)),
    totalTokenCount: input + output,
    ...(u.cached !== null ? { cachedContentTokenCount: u.cached } : {}),
    ...(u.reasoning !== null ? { thoughtsTokenCount: u.reasoning } : {}),
  };
}

/** The prefix of the ids given to calls an answer names without one. */
export const idPrefix = (body: Json): string => str(body.responseId) ?? 'gemini';

export function parseResponse(body: Json): IrResponse {
  const candidate = obj(arr(body.candidates)[0]);
  const ids = new CallIds(idPrefix(body));
  const parts: IrResponse['parts'] = [];
  for (const p of arr(obj(candidate?.content)?.parts)) {
    const part = obj(p);
    if (!part) continue;
    for (const ir of partsIn(part, ids, [])) {
      if (ir.type !== 'image' && ir.type !== 'tool_result') parts.push(ir);
    }
  }
  const blocked = !candidate && str(obj(body.promptFeedback)?.blockReason);
  return {
    id: str(body.responseId) ?? '',
    model: str(body.modelVersion) ?? '',
    parts,
    stop: blocked
      ? BLOCKED
      : stopOf(
          str(candidate?.finishReason) ?? '',
          parts.some((p) => p.type === 'tool_call'),
        ),
    stopSequence: null,
    usage: usageIn(body.usageMetadata),
  };
}

export function emitResponse(ir: IrResponse): Json {
  return {
    candidates: [
      {
        content: { role: 'model', parts: partsOut(ir.parts, () => '') },
        finishReason: FINISH_OUT[ir.stop],
        index: 0,
      },
    ],
    usageMetadata: usageOut(ir.usage),
    modelVersion: ir.model,
    responseId: ir.id,
  };
}

/**
 * Google's error body (`{error: {code, message, status, details}}`, in a one-element array on
 * some stream errors) as an IR error; the code is an ErrorInfo reason when there is one.
 */
export function parseError(status: number, body: unknown): IrError | null {
  const root = Array.isArray(body) ? body[0] : body;
  const err = obj(obj(root)?.error);
  if (!err || typeof err.message !== 'string') return null;
  const code = num(err.code) ?? status;
  const info = arr(err.details)
    .map(obj)
    .find((d) => typeof d?.reason === 'string');
  return {
    status: code,
    kind: kindForStatus(code),
    code: str(info?.reason) ?? str(err.status)?.toLowerCase() ?? 'upstream_error',
    message: err.message,
  };
}
