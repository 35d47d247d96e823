// Whole (non-streamed) Chat Completions answers and error bodies ↔ IR, and the stop and usage
// mapping the stream modules share. https://platform.openai.com/docs/api-reference/chat/object
import { openAiErrorOf } from '../errors';
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
  textOf,
} from '../ir';
import { textParts, toolCallsIn, toolCallsOut } from './request';

export const STOP_IN: Record<string, IrStop> = {
  stop: 'end',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

export const STOP_OUT: Record<IrStop, string> = {
  end: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
};

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  out.input = num(usage.prompt_tokens);
  out.output = num(usage.completion_tokens);
  out.cached = num(obj(usage.prompt_tokens_details)?.cached_tokens);
  out.reasoning = num(obj(usage.completion_tokens_details)?.reasoning_tokens);
  return out;
}

export function usageOut(u: IrUsage): Json {
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: u.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  };
}

/** Chat reports the service tier beside the usage, on the answer (or each chunk) itself. */
export function withTier(u: IrUsage, answer: Json): IrUsage {
  const tier = str(answer.service_tier);
  if (tier !== null) u.serviceTier = tier;
  return u;
}

export function parseResponse(body: Json): IrResponse {
  const choice = obj(arr(body.choices)[0]) ?? {};
  const msg = obj(choice.message) ?? {};
  const parts: IrResponse['parts'] = [];
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning, signature: null });
  const text = textParts(msg.content, []);
  if (text !== '') parts.push({ type: 'text', text });
  else if (typeof msg.refusal === 'string') parts.push({ type: 'text', text: msg.refusal });
  parts.push(...toolCallsIn(msg.tool_calls));
  let stop = STOP_IN[str(choice.finish_reason) ?? ''] ?? 'end';
  if (typeof msg.refusal === 'string' && text === '') stop = 'refusal';
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop,
    stopSequence: null,
    usage: withTier(usageIn(body.usage), body),
  };
}

export function emitResponse(ir: IrResponse, created: number): Json {
  const message: Json = { role: 'assistant', content: null, refusal: null };
  const text = textOf(ir.parts);
  if (text !== '') message.content = text;
  const reasoning = ir.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  const calls = ir.parts.filter((p) => p.type === 'tool_call');
  if (calls.length > 0) message.tool_calls = toolCallsOut(calls);
  return {
    id: ir.id,
    object: 'chat.completion',
    created,
    model: ir.model,
    // No fingerprint describes a translated answer's backend; OpenAI sends null in that case.
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: STOP_OUT[ir.stop === 'end' && calls.length > 0 ? 'tool_use' : ir.stop],
      },
    ],
    usage: usageOut(ir.usage),
  };
}

/** An OpenAI error object (`{error:{message, type, code, param}}`) as an IR error. */
export function parseError(status: number, body: unknown): IrError | null {
  return openAiErrorOf(status, obj(obj(body)?.error));
}
