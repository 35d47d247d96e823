// The searches before a whole (non-streamed) answer, as the client's API puts them.
import type { ClientFormat } from '../../../shared/contract';
import { webSearchBlocks } from '../translate/anthropic/web-search';
import { groundingMetadata } from '../translate/gemini/web-search';
import { arr, type IrWebSearch, type Json, obj } from '../translate/ir';
import { webSearchItem } from '../translate/responses/web-search';

/** `answer` (the final answer in the client's format) with the searches put in front. */
export function withSearches(format: ClientFormat, answer: Json, searches: IrWebSearch[]): Json {
  if (searches.length === 0) return answer;
  if (format === 'anthropic') {
    return { ...answer, content: [...searches.flatMap(webSearchBlocks), ...arr(answer.content)] };
  }
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
