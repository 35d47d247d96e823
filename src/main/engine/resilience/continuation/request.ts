import { emitRequest, type WireFormat } from '../../translate';
import type { IrMessage, IrRequest, Json } from '../../translate/ir';

/**
 * How a continuation carries the partial answer, per upstream:
 * - `prefill`: the partial answer as the assistant turn the model goes on from (Anthropic);
 * - `prefix`: the same through the provider's own assistant-prefix flag (DeepSeek's
 *   `prefix: true` on its beta Chat endpoint);
 * - `instruction`: the partial answer as an assistant message, then a short user message asking
 *   to go on exactly where it stopped (every other Chat, Responses and Gemini upstream).
 */
export type ContinuationForm = 'prefill' | 'prefix' | 'instruction';

export const CONTINUE_INSTRUCTION =
  'Your previous reply was cut off mid-stream. Continue it from exactly where it stopped: do not repeat anything already written, and add no preamble or commentary.';

/** The form a provider of this format at this address understands. */
export function continuationForm(wire: WireFormat, baseUrl: string): ContinuationForm {
  if (wire === 'anthropic') return 'prefill';
  if (wire === 'openai-chat' && /^https?:\/\/api\.deepseek\.com\/beta\/?$/i.test(baseUrl)) {
    return 'prefix';
  }
  return 'instruction';
}

/**
 * The conversation with the partial answer added, in the form given. Thinking is asked for no
 * more: the client already has the answer's thinking (or none), and Anthropic takes no prefill
 * with thinking on.
 */
export function continuationIr(ir: IrRequest, partial: string, form: ContinuationForm): IrRequest {
  const messages: IrMessage[] = ir.messages.map((m) => ({ role: m.role, parts: [...m.parts] }));
  // A prefill may not end in white space; the seam drops it again from what follows.
  const text = form === 'instruction' ? partial : partial.trimEnd();
  if (text !== '') {
    const last = messages.at(-1);
    const lastPart = last?.role === 'assistant' ? last.parts.at(-1) : undefined;
    // A client that prefilled the turn itself gets the partial answer after its own prefill.
    if (lastPart?.type === 'text') {
      last!.parts[last!.parts.length - 1] = { type: 'text', text: lastPart.text + text };
    } else if (last?.role === 'assistant') {
      last.parts.push({ type: 'text', text });
    } else messages.push({ role: 'assistant', parts: [{ type: 'text', text }] });
    if (form === 'instruction') {
      messages.push({ role: 'user', parts: [{ type: 'text', text: CONTINUE_INSTRUCTION }] });
    }
  }
  return { ...ir, messages, stream: true, reasoning: null };
}

/** The continuation request's body for an upstream of `wire` (the provider format decides details). */
export function continuationBody(
  wire: WireFormat,
  ir: IrRequest,
  partial: string,
  form: ContinuationForm,
  provider: Parameters<typeof emitRequest>[2],
): Json {
  const body = emitRequest(wire, continuationIr(ir, partial, form), provider).value;
  if (form === 'prefix') {
    const messages = body.messages as Json[] | undefined;
    const last = messages?.at(-1);
    if (last && last.role === 'assistant') last.prefix = true;
  }
  return body;
}
