// A web search the gateway ran, as a Responses `web_search_call` output item.
// https://platform.openai.com/docs/guides/tools-web-search
import { arr, type IrText, type IrWebSearch, type Json, obj, str } from '../ir';

export function webSearchItem(s: IrWebSearch, id: string, done: boolean): Json {
  const status = !done ? 'in_progress' : s.error ? 'failed' : 'completed';
  return {
    id,
    type: 'web_search_call',
    status,
    action: {
      type: 'search',
      query: s.query,
      ...(done ? { sources: s.results.map((r) => ({ type: 'url', url: r.url })) } : {}),
    },
  };
}

/**
 * An earlier turn's `web_search_call` item, for a provider that has no such item: the query
 * and the pages it found, as the assistant's own text.
 */
export function webSearchCallHistory(item: Json): IrText | null {
  const action = obj(item.action);
  const query = str(action?.query);
  if (query === null) return null;
  const urls = arr(action?.sources)
    .map((s) => str(obj(s)?.url))
    .filter((u): u is string => u !== null);
  const found = urls.length > 0 ? `\n${urls.map((u) => `- <${u}>`).join('\n')}` : '';
  return { type: 'text', text: `[searched the web for: ${query}]${found}` };
}
