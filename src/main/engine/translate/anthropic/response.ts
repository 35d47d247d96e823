// Whole (non-streamed) Anthropic answers and error bodies ↔ IR, and the stop and usage mapping
// the stream modules share. https://docs.anthropic.com/en/api/messages
import type { ErrorKind } from '../../wire/client-errors';
import {
  argumentsObject,
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
import { partOf } from './request';

export const STOP_IN: Record<string, IrStop> = {
  end_turn: 'end',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'max_tokens',
};

export const STOP_OUT: Record<IrStop, string> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause: 'pause_turn',
  refusal: 'refusal',
  content_filter: 'refusal',
};

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  const input = num(usage.input_tokens);
  const cached = num(usage.cache_read_input_tokens);
  const creation = num(usage.cache_creation_input_tokens);
  if (input !== null) out.input = input + (cached ?? 0) + (creation ?? 0);
  out.output = num(usage.output_tokens);
  out.cached = cached;
  out.cacheCreation = creation;
  const tier = str(usage.service_tier);
  if (tier !== null) out.serviceTier = tier;
  return out;
}

/**
 * The usage of a whole message (and of `message_start`), with the service tier when the provider
 * named one: Anthropic's own, or OpenAI's mapped to it (only `priority` has a counterpart).
 */
export function messageUsage(u: IrUsage): Json {
  const tier = u.serviceTier;
  const known =
    tier === undefined ? null : tier === 'priority' || tier === 'batch' ? tier : 'standard';
  return { ...usageOut(u), service_tier: known };
}

export function usageOut(u: IrUsage): Json {
  const cached = u.cached ?? 0;
  const creation = u.cacheCreation ?? 0;
  return {
    input_tokens: Math.max(0, (u.input ?? 0) - cached - creation),
    output_tokens: u.output ?? 0,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: cached,
    ...(u.webSearchRequests !== undefined
      ? { server_tool_use: { web_search_requests: u.webSearchRequests } }
      : {}),
  };
}

export function parseResponse(body: Json): IrResponse {
  const parts: IrResponse['parts'] = [];
  for (const b of arr(body.content)) {
    const block = obj(b);
    if (!block) continue;
    const part = partOf(block, []);
    if (part && part.type !== 'image' && part.type !== 'tool_result') parts.push(part);
  }
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop: STOP_IN[str(body.stop_reason) ?? ''] ?? 'end',
    stopSequence: str(body.stop_sequence),
    usage: usageIn(body.usage),
  };
}

export function emitResponse(ir: IrResponse): Json {
  return {
    id: ir.id,
    type: 'message',
    role: 'assistant',
    model: ir.model,
    content: ir.parts.map((p) =>
      p.type === 'text'
        ? { type: 'text', text: p.text }
        : p.type === 'reasoning'
          ? { type: 'thinking', thinking: p.text, signature: p.signature ?? '' }
          : { type: 'tool_use', id: p.id, name: p.name, input: argumentsObject(p.arguments) },
    ),
    // Some Chat servers finish a tool-calling turn with `stop`: the calls are what counts.
    stop_reason:
      STOP_OUT[
        ir.stop === 'end' && ir.parts.some((p) => p.type === 'tool_call') ? 'tool_use' : ir.stop
      ],
    stop_sequence: ir.stopSequence,
    usage: messageUsage(ir.usage),
  };
}

const KIND_OF_TYPE: Record<string, ErrorKind> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'too_large',
  rate_limit_error: 'rate_limit',
  api_error: 'upstream',
  overloaded_error: 'overloaded',
  timeout_error: 'timeout',
};

/** An Anthropic error object (`{type:'error', error:{type, message}}`) as an IR error. */
export function parseError(status: number, body: unknown): IrError | null {
  const err = obj(obj(body)?.error);
  if (!err || typeof err.message !== 'string') return null;
  const type = str(err.type) ?? 'api_error';
  return { status, kind: KIND_OF_TYPE[type] ?? 'upstream', code: type, message: err.message };
}
