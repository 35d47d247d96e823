// A whole (non-streamed) answer with what came before it (the model's words, its searches),
// as the client's API puts them.
import type { ClientFormat } from '../../../shared/contract';
import { webSearchBlocks } from '../translate/anthropic/web-search';
import { groundingMetadata } from '../translate/gemini/web-search';
import { arr, type IrResponse, type Json, obj } from '../translate/ir';
import { webSearchItem } from '../translate/responses/web-search';
import { type Shown, searchesOf } from './emulate';

/**
 * `emit` writes an IR answer in the client's format. Anthropic content keeps the order things
 * happened in, the model's words between the searches included; Responses and Gemini answers
 * show only the searches (as items before the message, as grounding metadata), as they do when
 * streamed (`shownIn`).
 */
/**
 * Whether a client of `format` is shown this before the answer. The model's words before a
 * search are Anthropic content blocks; in a Responses or Gemini answer they would be a message
 * of their own before the real one, which clients take for the answer.
 */
export function shownIn(format: ClientFormat, item: Shown): boolean {
  return item.type === 'web_search' || format === 'anthropic';
}

export function wholeAnswer(
  format: ClientFormat,
  final: IrResponse,
  shown: readonly Shown[],
  emit: (ir: IrResponse) => Json,
): Json {
  if (shown.length === 0) return emit(final);
  if (format === 'anthropic') {
    const answer = emit(final);
    const before = shown.flatMap((s) =>
      s.type === 'text' ? [{ type: 'text', text: s.text }] : webSearchBlocks(s.search),
    );
    return { ...answer, content: [...before, ...arr(answer.content)] };
  }
  const answer = emit(final);
  const searches = searchesOf(shown);
  if (searches.length === 0) return answer;
  if (format === 'openai-responses') {
    const items = searches.map((s, i) => webSearchItem(s, `ws_${s.id.slice(-24)}_${i}`, true));
    return { ...answer, output: [...items, ...arr(answer.output)] };
  }
  if (format === 'gemini') {
    const [first, ...rest] = arr(answer.candidates);
    const candidate = { ...(obj(first) ?? {}), groundingMetadata: groundingMetadata(searches) };
    return { ...answer, candidates: [candidate, ...rest] };
  }
  return answer;
}
